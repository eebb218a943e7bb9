r"""Runs OpenHands V1's own tool executors (openhands-tools 1.43.1, mounted read-only at /oracle)
on a list of calls and prints, for each, the text the model reads (`to_llm_content`, joined).

TEST-ONLY IMPORT SHIM. The stored copy of the SDK (/oracle/openhands-sdk) lacks modules the tools
import for incidental things, and two of the SDK modules it has import litellm and openai (not in
Debian) only for message types. So before the tools are imported, this file registers small
stand-ins for exactly these, and nothing else:
  - openhands.sdk.logger.get_logger          -> logging.getLogger
  - openhands.sdk.utils.sanitized_env         -> a copy of os.environ
  - openhands.sdk.utils(.truncate).maybe_truncate -> the text unchanged; it FAILS the run when the
    text is longer than the limit, so a case that would hit the SDK's truncation cannot pass here
  - openhands.sdk.utils.path                  -> POSIX `isabs` / identity (this runs on Linux)
  - openhands.sdk.utils.models.DiscriminatedUnionMixin -> pydantic.BaseModel (serialization only)
  - openhands.sdk.utils.visualize.display_json -> unused here (rich display)
  - openhands.sdk.llm TextContent/ImageContent, content_to_str -> the same fields as the SDK's
  - openhands.sdk.tool: ToolExecutor/ToolDefinition/ToolAnnotations/DeclaredResources/register_tool
    as empty bases (the tools subclass them; nothing of theirs runs), while Action and
    Observation (with ERROR_MESSAGE_HEADER and to_llm_content) are the REAL
    openhands/sdk/tool/schema.py, loaded from the copy.
  - openhands.tools.utils (absent from the copy): is ripgrep / grep on PATH.
  - openhands.sdk.security.shell_parser.parse (absent; tree-sitter-bash) -> "could not parse",
    and tree_sitter.Node -> object. The terminal then takes its own documented fallback for an
    input it cannot parse: the command is one statement, sent unchanged. For the single-statement
    commands without `\;`-style escapes that the cases use, that is what a successful parse gives
    too; the refusal of several newline-separated commands is therefore NOT exercised here.
Every executor, editor, history, encoding, observation class and wording is the reference's own
file. This shim is never part of the product.
"""

import importlib.util
import json
import logging
import os
import shutil
import sys
import types
from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict

ORACLE = "/oracle"
SDK = f"{ORACLE}/openhands-sdk/openhands/sdk"
sys.path[:0] = [f"{ORACLE}/openhands-tools", f"{ORACLE}/openhands-sdk"]
logging.disable(logging.CRITICAL)


def module(name: str, path: str | None = None, **attrs: Any) -> types.ModuleType:
    m = types.ModuleType(name)
    if path is not None:
        m.__path__ = [path]
    m.__dict__.update(attrs)
    sys.modules[name] = m
    return m


class TruncationReached(Exception):
    pass


def maybe_truncate(content: str, truncate_after: int | None = None, truncate_notice: str = "", **_: Any) -> str:
    if truncate_after is not None and len(content) > truncate_after:
        raise TruncationReached(f"shim: {len(content)} chars exceed {truncate_after}; the SDK would truncate")
    return content


class TextContent(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    cache_prompt: bool = False
    type: Literal["text"] = "text"
    text: str


class ImageContent(BaseModel):
    cache_prompt: bool = False
    type: Literal["image"] = "image"
    image_urls: list[str]


def content_to_str(contents: Any) -> list[str]:
    return [c.text if isinstance(c, TextContent) else f"[Image: {len(c.image_urls)} URLs]" for c in contents]


A = TypeVar("A")
O = TypeVar("O")


class ToolExecutor(Generic[A, O]):
    pass


class ToolDefinition(Generic[A, O]):
    name = "shim"


class Loose(BaseModel):
    model_config = ConfigDict(extra="allow")


import openhands  # noqa: E402  (the namespace package over both copies)

module("openhands.sdk", SDK, TextContent=TextContent, ImageContent=ImageContent)
module("openhands.sdk.logger", get_logger=logging.getLogger)
module("openhands.sdk.utils", f"{SDK}/utils", sanitized_env=lambda *a, **k: dict(os.environ), maybe_truncate=maybe_truncate, DEFAULT_TEXT_CONTENT_LIMIT=10**9)
module("openhands.sdk.utils.truncate", maybe_truncate=maybe_truncate)
module("openhands.sdk.utils.path", is_host_absolute_path=lambda p: os.path.isabs(str(p)), to_posix_path=lambda p: str(p))
module("openhands.sdk.utils.models", DiscriminatedUnionMixin=BaseModel)
module("openhands.sdk.utils.visualize", display_json=lambda data: json.dumps(data))
module("openhands.sdk.llm", f"{SDK}/llm", TextContent=TextContent, ImageContent=ImageContent)
module("openhands.sdk.llm.message", content_to_str=content_to_str, TextContent=TextContent, ImageContent=ImageContent)
tool_pkg = module("openhands.sdk.tool", f"{SDK}/tool")
spec = importlib.util.spec_from_file_location("openhands.sdk.tool.schema", f"{SDK}/tool/schema.py")
schema = importlib.util.module_from_spec(spec)
sys.modules["openhands.sdk.tool.schema"] = schema
spec.loader.exec_module(schema)
tool_pkg.__dict__.update(
    Action=schema.Action,
    Observation=schema.Observation,
    Schema=schema.Schema,
    ToolExecutor=ToolExecutor,
    ToolDefinition=ToolDefinition,
    ToolAnnotations=Loose,
    DeclaredResources=Loose,
    register_tool=lambda *a, **k: None,
)
module("openhands.sdk.tool.tool", FunctionToolParam=dict)
module(
    "openhands.tools.utils",
    _check_ripgrep_available=lambda: shutil.which("rg") is not None,
    _check_grep_available=lambda: shutil.which("grep") is not None,
    _log_ripgrep_fallback_warning=lambda *a, **k: None,
)

class _Unparsed:
    has_error = True
    tree = types.SimpleNamespace(root_node=None)


module("openhands.sdk.security", f"{SDK}/security")
module("openhands.sdk.security.shell_parser", parse=lambda _text: _Unparsed())
if importlib.util.find_spec("tree_sitter") is None:
    module("tree_sitter", Node=object)

# ---- end of the shim; from here on, the reference's own code ----

from openhands.tools.file_editor.definition import FileEditorAction  # noqa: E402
from openhands.tools.file_editor.impl import FileEditorExecutor  # noqa: E402
from openhands.tools.glob.definition import GlobAction  # noqa: E402
from openhands.tools.glob.impl import GlobExecutor  # noqa: E402
from openhands.tools.grep.definition import GrepAction  # noqa: E402
from openhands.tools.grep.impl import GrepExecutor  # noqa: E402
from openhands.tools.task_tracker.definition import TaskTrackerAction, TaskTrackerExecutor  # noqa: E402
from openhands.tools.terminal.definition import TerminalAction  # noqa: E402
from openhands.tools.terminal.impl import TerminalExecutor  # noqa: E402

from openhands.tools.apply_patch.definition import ApplyPatchAction, ApplyPatchExecutor  # noqa: E402


def text_of(observation: Any) -> str:
    return "".join(c.text for c in observation.to_llm_content if isinstance(c, TextContent))


def main() -> None:
    """argv[1]: JSON {workdir, source, hashes, sequences: [{setup?, teardown?, calls: [{tool, args}]}]}.

    Each sequence starts from a fresh copy of `source` at `workdir`; prints {results, files}: each
    call's text and error flag, and the repository's file hashes after each sequence.
    """
    import subprocess

    job = json.loads(open(sys.argv[1]).read())
    workdir = job["workdir"]
    out = {"results": [], "files": []}
    for seq in job["sequences"]:
        os.chdir("/")
        subprocess.run(["bash", "-c", f"rm -rf {workdir} && cp -a {job['source']} {workdir}"], check=True)
        if seq.get("setup"):
            subprocess.run(["bash", "-c", seq["setup"]], cwd=workdir, check=True)
        os.chdir(workdir)
        executors = {
            "file_editor": (FileEditorAction, FileEditorExecutor(workspace_root=workdir)),
            "glob": (GlobAction, GlobExecutor(working_dir=workdir)),
            "grep": (GrepAction, GrepExecutor(working_dir=workdir)),
            "task_tracker": (TaskTrackerAction, TaskTrackerExecutor()),
            "apply_patch": (ApplyPatchAction, ApplyPatchExecutor(workspace_root=workdir)),
        }
        if any(call["tool"] == "terminal" for call in seq["calls"]):
            executors["terminal"] = (TerminalAction, TerminalExecutor(working_dir=workdir, terminal_type=seq.get("terminalType")))
        results = []
        for call in seq["calls"]:
            action_cls, executor = executors[call["tool"]]
            try:
                action = action_cls.model_validate(call["args"])
            except Exception as e:  # noqa: BLE001 - the SDK refuses the call before any tool runs
                results.append({"invalid": str(e).splitlines()[0]})
                continue
            obs = executor(action)
            results.append({"observation": text_of(obs), "isError": bool(obs.is_error)})
        out["results"].append(results)
        hashes = subprocess.run(["bash", "-c", job["hashes"]], capture_output=True, text=True, check=True)
        out["files"].append(hashes.stdout.split("\n"))
        if seq.get("teardown"):
            subprocess.run(["bash", "-c", seq["teardown"]], cwd=workdir, check=True)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
