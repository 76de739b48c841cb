import t from 'tap'
import { spawn } from 'node:child_process'
import { request } from 'node:http'
import { createInterface } from 'node:readline'
import { pathToFileURL } from 'node:url'
import { fromRoot } from '../../common/paths.js'
import { serveProcess } from '../../bench/serve-process.js'

// A benchmark's fixture site runs in a `webkrab serve` process of its own: it must not
// outlive the program that started it, however that program ends.

async function answers (url: string): Promise<boolean> {
  return await new Promise(resolve => {
    const req = request(`${url}/bytes/10`, res => { res.resume(); resolve(true) })
    req.on('error', () => { resolve(false) })
    req.setTimeout(2000, () => { req.destroy() })
    req.end()
  })
}

t.test('the site a benchmark started ends when the benchmark closes it', async t => {
  const site = await serveProcess(['--port', '0'], 1)
  t.ok(await answers(site.origins[0]), 'it answers while the benchmark runs')
  await site.close()
  t.notOk(await answers(site.origins[0]), 'and not once closed')
})

t.test('the site a benchmark started ends when the benchmark dies without closing it', async t => {
  const program = `import { serveProcess } from ${JSON.stringify(pathToFileURL(fromRoot('dist', 'bench', 'serve-process.js')).href)}
const site = await serveProcess(['--port', '0'], 1)
console.log(site.origins[0])
setTimeout(() => { throw new Error('the benchmark crashed') }, 200)`
  const parent = spawn(process.execPath, ['--input-type=module', '-e', program], { stdio: ['ignore', 'pipe', 'ignore'] })
  const url = await new Promise<string>(resolve => { createInterface({ input: parent.stdout }).once('line', resolve) })
  t.ok(await answers(url), 'the site answered while the benchmark ran')
  const code = await new Promise<number | null>(resolve => { parent.once('exit', resolve) })
  t.not(code, 0, 'the benchmark crashed')
  let gone = false
  // bounded: the site closes within seconds of the channel closing
  for (let i = 0; i < 50 && !gone; i++) {
    gone = !(await answers(url))
    if (!gone) await new Promise(resolve => setTimeout(resolve, 100))
  }
  t.ok(gone, 'and the site stopped listening after it')
})
