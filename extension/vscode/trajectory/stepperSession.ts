import type * as vscode from 'vscode';
import { CancelledError, InputError } from '../../core/errors';
import { rawRecords } from '../../core/trajectory/load';
import type { ProtocolError } from '../../protocol/ipc';
import { ProtocolFailure } from '../../protocol/ipc';
import { stepperReveal, stepsDetails, stepsOpenRaw, stepsSearch, stepsSummaries, trajectoryOpen } from '../../protocol/stepper';
import { Disposable } from '../dispose';
import { WebviewMessenger } from '../webview/webviewMessenger';
import { searchSteps, stepsInRange, toStepDetail, toStepSummary, toTrajectoryHeader } from './stepView';
import type { RawRecordDocuments } from './rawRecordDocuments';
import type { TrajectoryDocument } from './trajectoryDocument';

function classify(error: unknown): ProtocolError {
  if (error instanceof InputError) return { code: 'invalid-input', message: error.message };
  if (error instanceof CancelledError) return { code: 'cancelled', message: error.message };
  return { code: 'internal', message: error instanceof Error ? error.message : String(error) };
}

/** One open stepper: answers its webview's requests from the document's trajectory. */
export class StepperSession extends Disposable {
  readonly messenger: WebviewMessenger;

  constructor(
    readonly document: TrajectoryDocument,
    webview: vscode.Webview,
    log: vscode.LogOutputChannel,
    rawRecordDocuments: RawRecordDocuments,
  ) {
    super();
    this.messenger = this._register(new WebviewMessenger(webview, log, classify));
    const steps = async () => (await document.trajectory()).steps;
    this.messenger.onRequest(trajectoryOpen, async () => {
      try {
        return toTrajectoryHeader(await document.trajectory(), document.fileName);
      } catch (error) {
        log.error(`cannot open ${document.uri.fsPath}`, error);
        throw error;
      }
    });
    this.messenger.onRequest(stepsSummaries, async (range) => ({ summaries: stepsInRange(await steps(), range).map(toStepSummary) }));
    this.messenger.onRequest(stepsDetails, async (range) => ({ steps: stepsInRange(await steps(), range).map(toStepDetail) }));
    this.messenger.onRequest(stepsSearch, async ({ query, caseSensitive }) => ({ indices: searchSteps(await steps(), query, caseSensitive) }));
    this.messenger.onRequest(stepsOpenRaw, async ({ index }) => {
      const step = (await steps())[index];
      if (!step) throw new ProtocolFailure('not-found', `${document.fileName} has no step ${index}`);
      const records = rawRecords(await document.loaded(), step);
      if (records.length === 0) throw new ProtocolFailure('not-found', `step ${index + 1} of ${document.fileName} records no source`);
      await rawRecordDocuments.show(document.fileName, index + 1, records.length === 1 ? records[0] : records);
      return { opened: true };
    });
  }

  reveal(index: number): void {
    this.messenger.notify(stepperReveal, { index });
  }
}
