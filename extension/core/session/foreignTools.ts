import type { Action } from '../trajectory/model';

const text = (v: unknown) => (typeof v === 'string' ? v : undefined);

/**
 * A recorded action with another agent's name for a tool the workbench has, as the workbench's
 * tool: R2E-Gym's `execute_bash {cmd}` and OpenHands' `run {command}` are `bash`, their
 * `finish` is `submit`, R2E-Gym's `file_editor` is `str_replace_editor` (same parameters).
 * Anything else is returned unchanged. The raw text stays as recorded.
 */
export function asWorkbenchAction(action: Action): Action {
  switch (action.tool) {
    case 'execute_bash':
    case 'run': {
      const command = text(action.args.cmd) ?? text(action.args.command);
      return command === undefined ? action : { ...action, tool: 'bash', args: { command } };
    }
    case 'finish':
      return { ...action, tool: 'submit', args: {} };
    case 'file_editor':
      return { ...action, tool: 'str_replace_editor' };
    default:
      return action;
  }
}
