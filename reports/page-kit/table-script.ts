/**
 * Makes every `<table data-sortable id=…>` sortable by clicking (or pressing
 * Enter on) a header, and filterable by an `<input data-filter-for=ID>` (text
 * anywhere in the row) and `<select data-filter-for=ID data-filter-column=N>`
 * (exact value of one column). A cell's `data-sort` attribute, when present,
 * is what it sorts and filters by; headers with `data-type="number"` sort
 * numerically. `[data-count-for=ID]` shows how many rows are visible.
 * Plain ES5 in an IIFE: it runs from a file:// page in any browser.
 */
export const TABLE_SCRIPT = String.raw`(function () {
  function value (row, i, numeric) {
    var cell = row.cells[i]
    if (!cell) return numeric ? -Infinity : ''
    var v = cell.getAttribute('data-sort')
    if (v === null) v = cell.textContent.trim()
    if (!numeric) return String(v).toLowerCase()
    var n = parseFloat(String(v).replace(/,/g, ''))
    return isNaN(n) ? -Infinity : n
  }
  function sortBy (table, th) {
    var headers = Array.prototype.slice.call(th.parentNode.children)
    var i = headers.indexOf(th)
    var numeric = th.getAttribute('data-type') === 'number'
    var dir = th.getAttribute('aria-sort') === 'ascending' ? 'descending' : 'ascending'
    headers.forEach(function (h) { h.removeAttribute('aria-sort') })
    th.setAttribute('aria-sort', dir)
    var body = table.tBodies[0]
    var rows = Array.prototype.slice.call(body.rows)
    rows.sort(function (a, b) {
      var x = value(a, i, numeric)
      var y = value(b, i, numeric)
      var c = x < y ? -1 : x > y ? 1 : 0
      return dir === 'ascending' ? c : -c
    })
    rows.forEach(function (r) { body.appendChild(r) })
  }
  function filter (table) {
    var id = table.id
    var text = document.querySelector('input[data-filter-for="' + id + '"]')
    var q = text ? text.value.trim().toLowerCase() : ''
    var selects = document.querySelectorAll('select[data-filter-for="' + id + '"]')
    var rows = table.tBodies[0].rows
    var shown = 0
    for (var r = 0; r < rows.length; r++) {
      var row = rows[r]
      var ok = !q || row.textContent.toLowerCase().indexOf(q) >= 0
      for (var s = 0; s < selects.length && ok; s++) {
        var sel = selects[s]
        if (sel.value) ok = value(row, +sel.getAttribute('data-filter-column'), false) === sel.value.toLowerCase()
      }
      row.hidden = !ok
      if (ok) shown++
    }
    var count = document.querySelector('[data-count-for="' + id + '"]')
    if (count) count.textContent = shown + ' of ' + rows.length + ' rows'
  }
  var tables = document.querySelectorAll('table[data-sortable]')
  Array.prototype.forEach.call(tables, function (table) {
    Array.prototype.forEach.call(table.querySelectorAll('thead th'), function (th) {
      th.classList.add('sortable')
      th.tabIndex = 0
      th.addEventListener('click', function () { sortBy(table, th) })
      th.addEventListener('keydown', function (e) {
        if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); sortBy(table, th) }
      })
    })
    var controls = document.querySelectorAll('[data-filter-for="' + table.id + '"]')
    Array.prototype.forEach.call(controls, function (el) {
      el.addEventListener('input', function () { filter(table) })
      el.addEventListener('change', function () { filter(table) })
    })
    filter(table)
  })
})()`
