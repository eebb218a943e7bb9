import { FOLDED_LINES, type StepAction, type StepDetail } from '../../extension/protocol/stepper';
import { codicon, el } from '../dom';
import { errorText } from '../errorText';
import { highlighted } from '../format';
import { tokenViewContent } from './tokens';
import { kindIcon } from './toolIcons';

function section(title: string, id: string, children: ReadonlyArray<Node>): HTMLElement {
  return el('section', { className: 'detail-section', attrs: { id, 'aria-label': title } }, [el('h2', { text: title }), ...children]);
}

function formatValue(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}

function argumentsTable(args: Record<string, unknown>): HTMLElement {
  const rows = Object.entries(args).map(([name, value]) =>
    el('tr', {}, [el('th', { text: name, attrs: { scope: 'row' } }), el('td', {}, [el('pre', { className: 'mono', text: formatValue(value) })])]),
  );
  return el('table', { className: 'arguments' }, [el('tbody', {}, rows)]);
}

function actionBlock(action: StepDetail['action'], id: string, query: string): HTMLElement {
  const head = el('div', { className: 'action-head' }, [
    codicon(kindIcon(action.kind), action.kind),
    el('span', { className: 'tool-name', text: action.tool ?? 'unparsed action' }),
  ]);
  const parts: Node[] = [head, el('pre', { className: 'mono action-raw', attrs: { id } }, highlighted(action.raw, query))];
  if (Object.keys(action.args).length > 0) parts.push(argumentsTable(action.args));
  return el('div', { className: 'action' }, parts);
}

/**
 * Long output shows its first lines and a button that unfolds the rest in place. `cut`: `text` is
 * only the beginning of the output, whose `lines` lines `whole` reads when unfolded.
 */
function foldedText(text: string, className: string, query: string, cut?: { lines: number; whole: () => Promise<string> }): HTMLElement {
  const lines = text.split('\n');
  const pre = el('pre', { className: `mono ${className}` }, highlighted(lines.length > FOLDED_LINES ? lines.slice(0, FOLDED_LINES).join('\n') : text, query));
  if (lines.length <= FOLDED_LINES && !cut) return pre;
  const hidden = lines.slice(FOLDED_LINES).join('\n').toLowerCase();
  const more = query && !cut && hidden.includes(query.toLowerCase()) ? ' (more matches below)' : '';
  const total = cut?.lines ?? lines.length;
  const toggle = el('vscode-button', {
    className: 'unfold',
    text: total > FOLDED_LINES ? `Show all ${total} lines${more}` : 'Show the whole output',
    attrs: { secondary: '' },
  });
  toggle.addEventListener('click', () => {
    void (cut ? cut.whole() : Promise.resolve(text)).then(
      (whole) => {
        pre.replaceChildren(...highlighted(whole, query));
        toggle.remove();
      },
      (error: unknown) => {
        toggle.textContent = `The rest could not be loaded: ${errorText(error)}`;
      },
    );
  });
  return el('div', {}, [pre, toggle]);
}

function tokenLine(detail: StepDetail): HTMLElement | undefined {
  const t = detail.tokens;
  if (!t) return undefined;
  const parts = [
    t.prompt !== undefined && `prompt ${t.prompt}`,
    t.completion !== undefined && `completion ${t.completion}`,
    t.total !== undefined && `total ${t.total}`,
  ].filter((p): p is string => typeof p === 'string');
  // What the recording reports of the model's usage, apart from the tokens counted in the Tokens section.
  return parts.length > 0 ? el('p', { className: 'tokens', text: `Recorded usage: ${parts.join(' · ')}` }) : undefined;
}

function diffView(diff: string): HTMLElement {
  const lines = diff.split('\n').map((line) => {
    const kind =
      line.startsWith('diff --git ') || line.startsWith('+++') || line.startsWith('---')
        ? 'file'
        : line.startsWith('@@')
          ? 'hunk'
          : line.startsWith('+')
            ? 'added'
            : line.startsWith('-')
              ? 'removed'
              : 'context';
    return el('span', { className: `diff-line ${kind}`, text: `${line}\n` });
  });
  return el('pre', { className: 'mono diff' }, lines);
}

function facts(detail: StepDetail): HTMLElement {
  const items: string[] = [];
  if (detail.exitCode !== undefined) items.push(`exit code ${detail.exitCode}`);
  if (detail.executionTime !== undefined) items.push(`${detail.executionTime.toFixed(2)} s`);
  // The file open once the step has run (what the next step starts from).
  if (detail.openFile) items.push(`open: ${detail.openFile}`);
  if (detail.workingDir) items.push(`cwd: ${detail.workingDir}`);
  if (detail.llmCalls) items.push(detail.llmCalls);
  if (detail.reasoningEffort) items.push(`reasoning effort ${detail.reasoningEffort}`);
  const badges = detail.flags.map((f) => el('vscode-badge', { text: f, attrs: { variant: 'default' } }));
  return el('div', { className: 'facts' }, [el('span', { text: items.join(' · ') }), ...badges]);
}

/** The step's buttons: what each does, when it shows, and the key that does the same. */
export type StepButton = StepAction | 'openRaw';

interface StepButtonSpec {
  readonly id: string;
  readonly icon: string;
  readonly label: string;
  readonly title: string;
  readonly key: string;
  readonly shows: (detail: StepDetail) => boolean;
}

export const STEP_BUTTONS: Readonly<Record<StepButton, StepButtonSpec>> = {
  showDiff: {
    id: 'show-diff',
    icon: 'diff',
    label: 'Show Diff',
    title:
      "Show the step's diff in the patch view: the recorded workspace diff, the final patch, or the change rebuilt from its edit; says why when there is none",
    key: 'd',
    shows: () => true,
  },
  openRaw: { id: 'open-raw', icon: 'json', label: 'Raw JSON', title: 'Open the step as written in the file', key: 'o', shows: (d) => d.hasSource },
  replayTo: {
    id: 'replay-to',
    icon: 'debug-rerun',
    label: 'Replay to Here',
    title: 'Replay the trajectory in its task container up to and including this step',
    key: 'r',
    shows: () => true,
  },
  fork: {
    id: 'fork',
    icon: 'repo-forked',
    label: 'Fork Here',
    title: 'Replay up to this step, then continue with the policy or by hand',
    key: 'f',
    shows: () => true,
  },
};

/** The button a key presses, for the keyboard handler. */
export function buttonForKey(key: string): StepButton | undefined {
  return (Object.keys(STEP_BUTTONS) as StepButton[]).find((b) => STEP_BUTTONS[b].key === key);
}

function stepButton(button: StepButton, detail: StepDetail, onPress: (button: StepButton, index: number) => void): HTMLElement {
  const spec = STEP_BUTTONS[button];
  const node = el('vscode-button', { attrs: { id: spec.id, secondary: '', title: `${spec.title} (${spec.key})` } }, [codicon(spec.icon), ` ${spec.label}`]);
  node.addEventListener('click', () => onPress(button, detail.index));
  return node;
}

function errorList(errors: StepDetail['errors']): HTMLElement {
  const items = errors.map((e) => el('li', { text: `${e.line !== undefined ? `output line ${e.line}: ` : ''}${e.detail}` }));
  return el('div', { className: 'step-errors', attrs: { id: 'step-errors', role: 'note' } }, [
    codicon('error'),
    el('span', { text: 'Failed:' }),
    el('ul', {}, items),
  ]);
}

/** A step's heading: "Step 3 of 12" (steps count from 1 for people). */
export function stepTitle(index: number, stepCount: number | string): string {
  return `Step ${index + 1} of ${stepCount}`;
}

export function renderStepDetail(
  detail: StepDetail,
  stepCount: number | string,
  onPress: (button: StepButton, index: number) => void,
  query = '',
  /** The step read whole, for an observation the detail carries cut (`observationCut`). */
  whole: () => Promise<StepDetail> = () => Promise.reject(new Error('the step was not sent whole')),
  /** The text of a completion token the file keeps as an id only (the host's /detokenize). */
  decode: (position: number) => Promise<string> = () => Promise.reject(new Error('no policy server to decode it')),
  /** Opens a trajectory the step delegated to, in a stepper of its own. */
  openSubagent: (name: string) => void = () => undefined,
): HTMLElement {
  const buttons = (Object.keys(STEP_BUTTONS) as StepButton[]).filter((b) => STEP_BUTTONS[b].shows(detail)).map((b) => stepButton(b, detail, onPress));
  const toolbar = el('div', { className: 'step-actions', attrs: { role: 'toolbar', 'aria-label': 'Step actions' } }, buttons);
  const header = el('header', { className: 'detail-header' }, [
    el('h1', { text: stepTitle(detail.index, stepCount), attrs: { id: 'step-title' } }),
    facts(detail),
    toolbar,
  ]);
  const sections: Node[] = [header];
  if (detail.formatError) sections.push(el('p', { className: 'format-error', text: `Format error: ${detail.formatError}`, attrs: { role: 'note' } }));
  const otherErrors = detail.errors.filter((e) => e.kind !== 'format-error');
  if (otherErrors.length > 0) sections.push(errorList(otherErrors));
  if (detail.subagents?.length) {
    const links = detail.subagents.map((name) => {
      const node = el('vscode-button', { attrs: { secondary: '', title: `Open the trajectory this step delegated to (${name}) in a stepper of its own` } }, [
        codicon('type-hierarchy-sub'),
        ` Open subagent ${name}`,
      ]);
      node.addEventListener('click', () => openSubagent(name));
      return node;
    });
    sections.push(el('div', { className: 'step-subagents', attrs: { id: 'step-subagents', role: 'toolbar', 'aria-label': 'Subagents' } }, links));
  }
  if (detail.thought.trim()) sections.push(section('Thought', 'thought', [el('p', { className: 'thought' }, highlighted(detail.thought, query))]));
  const actions =
    detail.calls.length > 1 ? detail.calls.map((c, i) => actionBlock(c.action, `action-raw-${i}`, query)) : [actionBlock(detail.action, 'action-raw', query)];
  sections.push(section(detail.calls.length > 1 ? `Actions (${detail.calls.length} parallel calls)` : 'Action', 'action', actions));
  // A submit step's observation is the final patch (SWE-agent): shown coloured, as a diff.
  const submittedPatch = detail.action.kind === 'submit' && /^diff --git /m.test(detail.observation);
  sections.push(
    section(submittedPatch ? 'Observation: the submitted patch (Show Diff opens it in the patch view)' : 'Observation', 'observation', [
      submittedPatch
        ? diffView(detail.observation.replace(/^\s*\n/, '').replace(/\r\n/g, '\n'))
        : foldedText(
            detail.observation,
            'observation-text',
            query,
            detail.observationCut && { lines: detail.observationCut.lines, whole: () => whole().then((d) => d.observation) },
          ),
    ]),
  );
  const usage = tokenLine(detail);
  sections.push(section('Tokens', 'tokens', [...(usage ? [usage] : []), ...tokenViewContent(detail.tokenView, decode)]));
  if (detail.diff) sections.push(section('Workspace diff', 'diff', [diffView(detail.diff)]));
  return el('article', { className: 'step-detail', attrs: { 'data-step': String(detail.index) } }, sections);
}
