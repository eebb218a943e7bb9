/** The default `test_script.sh`: the repository's pytest suite, run from the repository root. */
export const DEFAULT_TEST_SCRIPT = `#!/bin/bash
# Runs the repository's test suite from its root; test_parser.py reads what this prints.
# -rA lists every test with its outcome in the short summary.
set -uo pipefail
python3 -m pytest -rA --tb=short --color=no -p no:cacheprovider "$@"
`;

/** The default \`test_parser.py\`: pytest's verbose and -rA lines to JSON {test_id: status}. */
export const DEFAULT_TEST_PARSER = `#!/usr/bin/env python3
"""Reads pytest output (the file named on the command line, or stdin) and prints JSON
{test_id: status}, status one of PASSED FAILED SKIPPED ERROR XFAIL XPASS. A later line about
the same test wins (a teardown ERROR after a PASSED call)."""
import json
import re
import sys

STATUS = r"(PASSED|FAILED|SKIPPED|ERROR|XFAIL|XPASS)"
VERBOSE = re.compile(r"^(\\S.*?::.+?) " + STATUS + r"(?: \\(.*\\))?(?:\\s+\\[\\s*\\d+%\\])?\\s*$")
SUMMARY = re.compile(r"^(?:\\[gw\\d+\\] \\[\\s*\\d+%\\] )?" + STATUS + r" (.+)$")
# The message after " - " may hold brackets, so the shortest closing bracket wins.
SUMMARY_ID = re.compile(r"^(\\S+?::[^\\s\\[]+(?:\\[.*?\\])?)(?:$| - | )")


def parse(text):
    statuses = {}
    for line in text.splitlines():
        line = line.rstrip()
        summary = SUMMARY.match(line)
        test_id = summary and SUMMARY_ID.match(summary.group(2))
        if test_id:
            statuses[test_id.group(1)] = summary.group(1)
            continue
        verbose = VERBOSE.match(line)
        if verbose:
            statuses[verbose.group(1)] = verbose.group(2)
    return statuses


def main():
    if len(sys.argv) > 1:
        with open(sys.argv[1], encoding="utf-8", errors="replace") as f:
            text = f.read()
    else:
        text = sys.stdin.read()
    json.dump(parse(text), sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\\n")


if __name__ == "__main__":
    main()
`;
