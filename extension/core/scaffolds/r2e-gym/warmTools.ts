/**
 * R2E-Gym's `file_editor` and `search` served from one warm Python per sandbox: the same tool
 * program (toolProgram.ts, as installed in the image), compiled once under each tool's name, run
 * in memory per call with the argv, working directory, stdout and stderr a fresh process would
 * have, so a call costs one round trip over the server's stdio instead of a Python start-up.
 */
import { WarmPerSandbox, WarmPython } from '../../runtime/warmPython';
import { R2E_PATH } from './freshRun';
import { R2E_PROGRAM_PATH, R2E_PYTHON, R2E_TOOL_DIR } from './toolProgram';

/**
 * The server, run as `python -c SOURCE <program> <tool dir>`. Requests and answers are JSON lines:
 *   {"id": 1, "tool": "file_editor", "argv": ["<base64 of each argument's bytes>", ...], "cwd": "/testbed"}
 *   -> {"id": 1, "output": "<base64 of what the process would print, stdout and stderr on one pipe>", "code": <exit status>}
 *   or {"id": 1, "error": "..."} when the server itself failed (the caller then runs the call fresh).
 * A call runs as the program's `__main__` would: sys.argv[0] is `<tool dir>/<tool>`, stdout is a
 * block-buffered UTF-8 writer and stderr a line-buffered one, both on one pipe (so what each
 * prints lands in the order a process's pipe gets it), SystemExit gives the exit status and an
 * uncaught exception prints its traceback and gives 1. Its first line is {"ready": "<python version>",
 * "pid": n}, or {"unusable": "<why>"} before it exits.
 */
const R2E_SERVER_SOURCE = String.raw`
import sys, os
# Imports resolve as for the script: from its folder, not from the repository (python -c puts the working directory first).
sys.path[0] = os.path.dirname(os.path.realpath(sys.argv[1]))
import io, json
answers = os.fdopen(os.dup(1), "wb")
def answer(obj):
    answers.write(json.dumps(obj).encode("utf-8") + b"\n")
    answers.flush()
try:
    if sys.version_info[0] < 3:
        raise RuntimeError("Python %d.%d is not Python 3" % sys.version_info[:2])
    import base64, builtins, threading, traceback, warnings
    requests = os.fdopen(os.dup(0), "rb")
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    program, tool_dir = sys.argv[1], sys.argv[2]
    with open(program, "rb") as handle:
        source = handle.read().decode("utf-8")
    cut = source.rindex('\nif __name__ == "__main__":') + 1
    body = source[:cut]
    main = "\n" * body.count("\n") + source[cut:]
    compile(body, program, "exec")
    stderr_encoding = sys.stderr.encoding
except Exception as e:
    answer({"unusable": "%s: %s" % (type(e).__name__, e)})
    sys.exit(0)

tools = {}

def tool_globals(name):
    found = tools.get(name)
    if found is None:
        path = os.path.join(tool_dir, name)
        found = {"__name__": "__main__", "__file__": path, "__builtins__": builtins, "__doc__": None}
        saved = sys.stdout
        sys.stdout = io.TextIOWrapper(io.BytesIO())
        try:
            exec(compile(body, path, "exec"), found)
        finally:
            sys.stdout = saved
        found["__swb_main__"] = compile(main, path, "exec")
        tools[name] = found
    return found

def exit_status(code, err):
    if code is None:
        return 0
    if isinstance(code, int):
        return code % 256
    err.write(str(code) + "\n")
    return 1

def forget_warnings(scope):
    scope.pop("__warningregistry__", None)
    for name in ("_filters_mutated", "_filters_mutated_lock_held"):
        if hasattr(warnings, name):
            try:
                getattr(warnings, name)()
                break
            except Exception:
                pass

def run(request):
    name = request["tool"]
    scope = tool_globals(name)
    argv = [os.fsdecode(base64.b64decode(word)) for word in request["argv"]]
    os.chdir(request["cwd"])
    reader, writer = os.pipe()
    chunks = []
    def drain():
        while True:
            data = os.read(reader, 65536)
            if not data:
                return
            chunks.append(data)
    pump = threading.Thread(target=drain)
    pump.daemon = True
    pump.start()
    out = io.TextIOWrapper(io.open(writer, "wb", closefd=False), encoding="utf-8")
    err = io.TextIOWrapper(io.open(writer, "wb", closefd=False), encoding=stderr_encoding, errors="backslashreplace", line_buffering=True)
    saved = sys.stdout, sys.stderr, sys.argv
    sys.stdout, sys.stderr, sys.argv = out, err, [os.path.join(tool_dir, name)] + argv
    forget_warnings(scope)
    code = 0
    try:
        exec(scope["__swb_main__"], scope)
    except SystemExit as e:
        code = exit_status(e.code, err)
    except BaseException:
        kind, value, trace = sys.exc_info()
        traceback.print_exception(kind, value, trace.tb_next, file=err)
        code = 1
    finally:
        for stream in (out, err):
            try:
                stream.flush()
            except Exception:
                pass
        sys.stdout, sys.stderr, sys.argv = saved
        os.close(writer)
        pump.join()
        os.close(reader)
    return {"output": base64.b64encode(b"".join(chunks)).decode("ascii"), "code": code}

answer({"ready": "%d.%d.%d" % sys.version_info[:3], "name": "R2E-Gym tools", "pid": os.getpid()})
for line in requests:
    request = json.loads(line.decode("utf-8"))
    try:
        result = run(request)
    except Exception as e:
        result = {"error": "%s: %s" % (type(e).__name__, e)}
    result["id"] = request["id"]
    answer(result)
`;

/** One warm server per sandbox (`python -c` with the image's venv Python), started on first use. */
export const r2eServers = new WarmPerSandbox<WarmPython>(
  (sandbox) =>
    WarmPython.start(sandbox, [R2E_PYTHON, '-c', R2E_SERVER_SOURCE, R2E_PROGRAM_PATH, R2E_TOOL_DIR], {
      cwd: sandbox.repoPath,
      env: { PATH: R2E_PATH },
    }),
  (sandbox, reason) =>
    console.warn(`swe-workbench: R2E-Gym's file_editor and search start a new Python process for every call in sandbox ${sandbox.id.slice(0, 12)}: ${reason}`),
);
