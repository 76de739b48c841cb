import { barChart, card, dataTable, renderPage, statTiles, type Bar, type Row } from '../../reports/page-kit.js'
import { version } from '../../common/version.js'
import type { SchedulerBenchResult } from './scheduler-types.js'

const COLORS: Record<string, string> = { uniform: '#8a8f98', oracle: '#2f6fdd', learned: '#1a9a5c' }

/** The benchmark's results as a self-contained HTML page: freshness by policy and budget, and every figure. */
export function renderSchedulerPage (r: SchedulerBenchResult): string {
  const weighted = r.variant === 'weighted'
  const key = weighted ? 'weightedFreshness' : 'freshness'
  const bars: Bar[] = []
  const rows: Row[] = []
  for (const run of r.runs) {
    for (const p of run.policies) {
      const w = p.windows[0]
      bars.push({ label: `B/N ${run.ratio} · ${p.policy}`, value: w[key], color: COLORS[p.policy], display: w[key].toFixed(4), attrs: { 'data-policy': p.policy, 'data-ratio': run.ratio } })
      for (const win of p.windows) {
        rows.push({
          cells: [
            run.ratio,
            p.policy,
            `${win.from}-${win.to}`,
            { html: win.freshness.toFixed(4), sort: win.freshness },
            { html: win.weightedFreshness.toFixed(4), sort: win.weightedFreshness },
            { html: win.meanAgeDays.toFixed(2), sort: win.meanAgeDays },
            Math.round(win.requestsPerDay),
            { html: (win.bytesPerDay / win.unconditionalBytesPerDay).toFixed(3), sort: win.bytesPerDay / win.unconditionalBytesPerDay },
            { html: (100 * win.notModifiedShare).toFixed(1), sort: win.notModifiedShare },
            { html: (100 * win.changedShare).toFixed(1), sort: win.changedShare },
            win.neverFetched
          ]
        })
      }
    }
  }
  const learned = r.runs.find(run => run.ratio === 0.1)?.policies.find(p => p.policy === 'learned') ?? r.runs[0]?.policies.find(p => p.policy === 'learned')
  const stats = learned === undefined
    ? ''
    : statTiles([
      { id: 'learned-freshness', label: `learned ${weighted ? 'weighted ' : ''}freshness`, value: learned.windows[0][key].toFixed(4), raw: learned.windows[0][key], detail: `days ${learned.windows[0].from}-${learned.windows[0].to}` },
      ...r.targets.filter(t => !t.id.startsWith('reference')).slice(0, 3).map(t => ({ id: t.id.replace(/[^a-z0-9-]/gi, '-'), label: t.id, value: t.value.toFixed(4), raw: t.value, detail: t.description, tone: t.met ? 'good' as const : 'bad' as const }))
    ])
  const body = stats +
    card({ title: `${weighted ? 'Importance-weighted freshness' : 'Freshness'} by policy and budget`, caption: `Days ${r.runs[0]?.policies[0]?.windows[0]?.from ?? ''}-${r.runs[0]?.policies[0]?.windows[0]?.to ?? ''}; uniform round-robin, the oracle (true rates) and the learned planner.`, body: barChart(bars, { title: 'freshness by policy and budget', id: 'freshness-chart', labelWidth: 190, format: n => n.toFixed(4) }) }) +
    card({
      title: 'Every figure',
      body: dataTable({
        id: 'figures',
        columns: ['B/N', 'policy', 'days', 'freshness', 'weighted', 'age (d)', 'requests/day', 'bytes ratio', '304 %', 'changed %', 'never fetched'].map((label, i) => ({ label, numeric: i !== 1 && i !== 2 })),
        rows
      })
    }) +
    card({
      title: 'Parameters',
      body: dataTable({
        id: 'parameters',
        columns: [{ label: 'parameter' }, { label: 'value', className: 'mono' }],
        rows: Object.entries(r.parameters).map(([name, value]) => ({ cells: [name, typeof value === 'object' ? JSON.stringify(value) : String(value)] }))
      })
    })
  return renderPage({
    title: `Scheduler benchmark (S1, ${r.variant})`,
    subtitle: `${r.parameters.pages} pages, ln λ ~ Normal(ln ${r.parameters.rateMedian}/day, ${r.parameters.rateSigma}), seed ${r.parameters.seed}`,
    body,
    footer: `webkrab ${version}`
  })
}
