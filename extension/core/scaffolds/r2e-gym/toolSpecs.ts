import type { OpenAiToolSpec } from '../../aci/toolRegistry';

/** The four tools as R2E-Gym describes them to a model (`agenthub/tools/__init__.py`). */
export const R2E_TOOL_SPECS: OpenAiToolSpec[] = [
  {
    type: 'function',
    function: {
      name: 'search',
      description:
        '\nDescription: Search for a term in either a directory or a single file.\n\nBehavior:\n* If `--path` points to a directory (default is `.`), we recursively search all non-hidden files and directories.\n* If `--path` points to a file, we run `grep -n` on that file to find line numbers containing the search term.\n* If more than 100 files match (directory search scenario), the tool will stop listing and inform you to narrow your search.\n* If no files are found that match your search term, the tool will inform you of that as well.\n\n**Parameters:**\n  1. **search_term** (`string`, required): The term to search for in files.\n  2. **path** (`string`, optional): The file or directory in which to search. If not provided, defaults to the current directory (i.e., `.`).\n',
      parameters: {
        type: 'object',
        properties: {
          search_term: { description: 'The term to search for in files.', type: 'string' },
          path: { description: 'The file or directory to search in. Defaults to `.` if not specified.', type: 'string' },
        },
        required: ['search_term'],
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'file_editor',
      description:
        'Custom editing tool for viewing, creating and editing files\n* State is persistent across command calls and discussions with the user\n* If `path` is a file, `view` displays the result of applying `cat -n`. If `path` is a directory, `view` lists non-hidden files and directories up to 2 levels deep\n* The `create` command cannot be used if the specified `path` already exists as a file\n* If a `command` generates a long output, it will be truncated and marked with `<response clipped>`\n* The `undo_edit` command will revert the last edit made to the file at `path`\n\nNotes for using the `str_replace` command:\n* The `old_str` parameter should match EXACTLY one or more consecutive lines from the original file. Be mindful of whitespaces!\n* If the `old_str` parameter is not unique in the file, the replacement will not be performed. Make sure to include enough context in `old_str` to make it unique\n* The `new_str` parameter should contain the edited lines that should replace the `old_str`\n',
      parameters: {
        type: 'object',
        properties: {
          command: {
            description: 'The command to run. Allowed options are: `view`, `create`, `str_replace`, `insert`, `undo_edit`.',
            enum: ['view', 'create', 'str_replace', 'insert', 'undo_edit'],
            type: 'string',
          },
          path: { description: 'Absolute path to file or directory, e.g. `/testbed/file.py` or `/testbed`.', type: 'string' },
          file_text: { description: 'Required for the `create` command, contains the content of the file to be created.', type: 'string' },
          old_str: { description: 'Required for the `str_replace` command, specifies the string in `path` to replace.', type: 'string' },
          new_str: {
            description:
              'Optional for the `str_replace` command to specify the replacement string. Required for the `insert` command to specify the string to insert.',
            type: 'string',
          },
          insert_line: { description: 'Required for the `insert` command. The `new_str` will be inserted AFTER the line specified.', type: 'integer' },
          view_range: {
            description:
              'Optional for the `view` command when `path` points to a file. Specifies the line range to view. E.g., [11, 12] shows lines 11 and 12. Indexing starts at 1. Use [start_line, -1] to show all lines from `start_line` to the end.',
            type: 'array',
            items: { type: 'integer' },
          },
          concise: {
            description:
              'Optional for the `view` command. If `True`, displays a concise skeletal view of the file. Very useful for localization tasks. Highly recommended for large files.',
            type: 'boolean',
          },
        },
        required: ['command', 'path'],
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'execute_bash',
      description:
        '\nDescription: Execute a bash command in the terminal.\n\nParameters:\n  (1) command (string, required): The bash command to execute. For example: `python my_script.py`\n',
      parameters: {
        type: 'object',
        properties: { cmd: { type: 'string', description: "The command (and optional arguments) to execute. For example: 'python my_script.py'" } },
        required: ['cmd'],
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'finish',
      description:
        "A simple finish tool with a 'submit' command.\n\nNotes about the `submit` command:\n* When invoked with `--result`, the provided string is used for submitting required task results.\n* If no `--result` is provided, it defaults to an empty string.\n",
      parameters: {
        type: 'object',
        properties: {
          command: { description: 'The command to run. Currently only `submit` is supported.', type: 'string', enum: ['submit'] },
          result: { description: 'Optional. The result text to submit. Defaults to an empty string if not provided.', type: 'string' },
        },
        required: ['command'],
      },
    },
  },
];
