import type { Sandbox } from '../../../runtime/sandbox';
import { WarmPerSandbox, WarmPython, WarmPythonTimeout } from '../../../runtime/warmPython';
import { FLAKE8_ARGS } from './flake8Guard';

/**
 * The lint guard's flake8 kept warm: one Python process per sandbox, started on first use with
 * the interpreter of the image's `flake8` command, checks files with flake8's own Application (the
 * same arguments as the command, the same output layout), reading a proposed edit from memory
 * instead of the disk. A check costs one round trip over the process's stdio instead of a flake8
 * start-up (~200 ms). When the image has no usable Python or flake8 does not import, the guard
 * runs the command as before, and says so once in the log.
 */

/**
 * The server, run with `python -c`. Requests and answers are JSON lines:
 *   {"id": 1, "path": "/abs/file.py"}               check the file on disk
 *   {"id": 2, "path": "/abs/file.py", "text": "..."} check `text` as if it were the file's UTF-8 bytes
 *   -> {"id": n, "output": "<what the flake8 command prints on stdout>"} or {"id": n, "error": "..."}
 * (core/runtime/warmPython.ts carries them). Its first line is {"ready": "<flake8 version>", "name": "flake8"}, or {"unusable": "<why>"} before it exits.
 * Answers are cached by path and bytes: a file checked after an edit is the next edit's "before".
 */
const FLAKE8_SERVER_SOURCE = String.raw`
import sys, json
out = sys.stdout.buffer
def answer(obj):
    out.write(json.dumps(obj).encode() + b"\n")
    out.flush()
try:
    import io, os, inspect, linecache, tokenize, collections, hashlib
    import flake8
    from flake8.main import application
    from flake8 import processor
    app = application.Application()
    app.initialize(json.loads(sys.argv[1]))
    takes_files = len(inspect.signature(app.run_checks).parameters) > 0
    original_read_lines = processor.FileProcessor.read_lines
except Exception as e:
    answer({"unusable": "%s: %s" % (type(e).__name__, e)})
    sys.exit(0)

in_memory = {}

def read_lines(self):
    data = in_memory.get(self.filename)
    if data is None:
        return original_read_lines(self)
    # flake8's read_lines_from_filename on these bytes: tokenize.open, latin-1 when that fails.
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return io.TextIOWrapper(io.BytesIO(data), encoding, line_buffering=True).readlines()
    except (SyntaxError, UnicodeError):
        return io.TextIOWrapper(io.BytesIO(data), "latin-1").readlines()

processor.FileProcessor.read_lines = read_lines
cache = collections.OrderedDict()

def check(path, data):
    key = (path, hashlib.sha1(data).hexdigest()) if data is not None else None
    if key is not None and key in cache:
        cache.move_to_end(key)
        return cache[key]
    captured = io.BytesIO()
    stdout = sys.stdout
    wrapper = io.TextIOWrapper(captured, encoding="utf-8", write_through=True)
    sys.stdout = wrapper
    try:
        if data is not None:
            in_memory[path] = data
        linecache.clearcache()
        app.options.filenames = [path]
        if takes_files:
            app.run_checks([path])
        else:
            app.run_checks()
        app.report_errors()
        wrapper.flush()
        text = captured.getvalue().decode("utf-8", "replace")
    finally:
        sys.stdout = stdout
        wrapper.detach()
        in_memory.clear()
    if key is not None:
        cache[key] = text
        while len(cache) > 32:
            cache.popitem(last=False)
    return text

answer({"ready": flake8.__version__, "name": "flake8"})
for line in sys.stdin.buffer:
    request = json.loads(line)
    try:
        path = request["path"]
        if "text" in request:
            data = request["text"].encode("utf-8")
        else:
            try:
                with open(path, "rb") as f:
                    data = f.read()
            except OSError:
                data = None
        if data is not None:
            # Checked as bytes from memory: the file on disk is read once, here.
            answer({"id": request["id"], "output": check(path, data)})
        else:
            answer({"id": request["id"], "output": check(path, None)})
    except Exception as e:
        answer({"id": request["id"], "error": "%s: %s" % (type(e).__name__, e)})
`;

/**
 * Prints the interpreter of the shell's `flake8` command (from its `#!` line, through
 * `/usr/bin/env` when it names one), then `$PYTHONPATH`. Nothing on the first line when
 * flake8 is missing or is not a script.
 */
const INTERPRETER_SCRIPT =
  'if __swb_f=$(command -v flake8 2>/dev/null) && [ -f "$__swb_f" ] && IFS= read -r __swb_l < "$__swb_f"; then ' +
  'case $__swb_l in "#!"*) read -r __swb_i __swb_a _ <<< "${__swb_l#??}"; ' +
  'if [ "$__swb_i" = /usr/bin/env ]; then command -v "$__swb_a"; else printf "%s\\n" "$__swb_i"; fi;; *) echo;; esac; ' +
  'else echo; fi; printf "%s\\n" "${PYTHONPATH-}"';

/** The lint guard's server: flake8's output for a path, from the warm Python process. */
export class WarmFlake8 {
  /** Checks answered so far (a check that failed over to the command is not counted). */
  answered = 0;

  private constructor(
    private readonly server: WarmPython,
    readonly version: string,
  ) {}

  /** Starts the server with `interpreter`; the reason it cannot run when the import fails or the process dies. */
  static async start(sandbox: Sandbox, interpreter: string, env: Record<string, string>): Promise<WarmFlake8 | string> {
    const server = await WarmPython.start(sandbox, [interpreter, '-c', FLAKE8_SERVER_SOURCE, JSON.stringify(FLAKE8_ARGS)], { cwd: '/', env });
    if (server instanceof WarmPython) return new WarmFlake8(server, String(server.hello.ready));
    return `the flake8 server cannot run with ${interpreter}: ${server}`;
  }

  get alive(): boolean {
    return this.server.alive;
  }

  /**
   * What `flake8 --isolated --select=... <path>` prints: for the file on disk, or for `text` as
   * its content. A check not answered within `timeoutMs` fails and stops the process (the next
   * use starts another).
   */
  async check(path: string, text?: string, timeoutMs = 60_000): Promise<string> {
    const answer = await this.server.request(text === undefined ? { path } : { path, text }, timeoutMs).catch((e: unknown) => {
      if (e instanceof WarmPythonTimeout) throw new Error(`the warm flake8 did not answer within ${timeoutMs} ms`);
      throw new Error('the warm flake8 process ended');
    });
    if (typeof answer.output !== 'string') throw new Error(`the warm flake8 failed: ${String(answer.error)}`);
    this.answered++;
    return answer.output;
  }

  dispose(): Promise<void> {
    return this.server.dispose();
  }
}

/** Per sandbox: the running server, or why there is none (then the guard runs the command). */
const servers = new WarmPerSandbox<WarmFlake8, [shell: (script: string) => Promise<string>]>(
  async (sandbox, shell) => {
    const [interpreter = '', pythonPath = ''] = (await shell(INTERPRETER_SCRIPT)).split('\n');
    if (!/^\/\S*\/python[0-9.]*$/.test(interpreter.trim())) {
      return interpreter.trim() === '' ? 'the shell has no flake8 script' : `flake8's interpreter ${interpreter.trim()} is not a Python`;
    }
    return WarmFlake8.start(sandbox, interpreter.trim(), pythonPath.trim() === '' ? {} : { PYTHONPATH: pythonPath.trim() });
  },
  (sandbox, reason) => console.warn(`swe-workbench: the lint guard runs the flake8 command for every check in sandbox ${sandbox.id.slice(0, 12)}: ${reason}`),
);

/**
 * The sandbox's warm flake8, started on first use; undefined when it cannot run (the reason is
 * logged once per sandbox). `shell` runs a snippet in the agent's shell, where `flake8` resolves.
 */
export function warmFlake8For(sandbox: Sandbox, shell: (script: string) => Promise<string>): Promise<WarmFlake8 | undefined> {
  return servers.get(sandbox, shell);
}
