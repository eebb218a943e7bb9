import { rolloutsExport, rolloutsExportCancel, rolloutsExportProgress, type RolloutQuery } from '../../extension/protocol/rollouts';
import { codicon, el } from '../dom';
import { errorText } from '../errorText';
import type { Host } from '../host';

/** Export SFT…: the button that shows the bar, and the bar (ready-made filters, file, progress) that exports the rows the query shows. */
export class ExportBar {
  readonly open = el(
    'button',
    {
      className: 'row-action',
      attrs: { type: 'button', id: 'export-open', title: 'Export the rows shown as supervised fine-tuning data (JSONL chat messages)' },
    },
    [codicon('export'), ' Export SFT…'],
  );
  private readonly keep = el('vscode-textfield', {
    attrs: { id: 'export-keep', placeholder: 'mixed,resolved,max-turns=30,max-tokens=32000,no-git-history', 'aria-label': 'Ready-made filters' },
  });
  private readonly file = el('vscode-textfield', {
    attrs: { id: 'export-file', value: 'sft.jsonl', 'aria-label': 'Export file (relative to the workspace folder)' },
  });
  private readonly start = el('button', { className: 'row-action', attrs: { type: 'button', id: 'export-start' } }, [codicon('save'), ' Export']);
  private readonly cancel = el('button', { className: 'row-action', attrs: { type: 'button', id: 'export-cancel', hidden: '' } }, [
    codicon('close'),
    ' Cancel',
  ]);
  private readonly progress = el('progress', { attrs: { id: 'export-progress', max: '1', value: '0', hidden: '' } });
  private readonly status = el('span', { attrs: { id: 'export-status', role: 'status' } });
  readonly bar = el('div', { attrs: { id: 'export-bar', hidden: '', 'aria-label': 'Export' } }, [
    el('label', { className: 'picker', text: 'Keep ' }, [this.keep]),
    el('label', { className: 'picker', text: 'File ' }, [this.file]),
    this.start,
    this.cancel,
    this.progress,
    this.status,
  ]);

  constructor(
    private readonly host: Host,
    /** The query whose rows an export writes: the table's, when the export starts. */
    private readonly query: () => RolloutQuery,
  ) {}

  /** Listens to its buttons and to the host's progress. */
  wire(): void {
    this.open.addEventListener('click', () => {
      this.bar.hidden = !this.bar.hidden;
    });
    this.start.addEventListener('click', () => void this.run());
    this.cancel.addEventListener('click', () => void this.host.request(rolloutsExportCancel, {}));
    this.host.onNotification(rolloutsExportProgress, ({ done, total, written }) => {
      this.progress.max = Math.max(1, total);
      this.progress.value = done;
      this.status.textContent = `${done} of ${total} read, ${written} written…`;
    });
  }

  /** Exports the rows of the current query; the host streams them to a temporary file, renamed when whole. */
  private async run(): Promise<void> {
    this.start.disabled = true;
    this.cancel.hidden = false;
    this.progress.hidden = false;
    this.progress.value = 0;
    this.status.textContent = 'Starting…';
    try {
      const r = await this.host.request(rolloutsExport, { query: this.query(), keep: this.keep.value, file: this.file.value });
      if (r.cancelled) this.status.textContent = `Export cancelled: ${r.file} was not written.`;
      else {
        const skipped = Object.entries(r.skipped)
          .map(([reason, n]) => `${reason} ×${n}`)
          .join('; ');
        this.status.textContent = `Wrote ${r.written} of ${r.selected} rollouts to ${r.file}${skipped ? `; left out: ${skipped}` : ''}${r.gitHistory ? `; ${r.gitHistory} read git history (flagged)` : ''}.`;
      }
    } catch (error) {
      this.status.textContent = `Export failed: ${errorText(error)}`;
    } finally {
      this.start.disabled = false;
      this.cancel.hidden = true;
      this.progress.hidden = true;
    }
  }
}
