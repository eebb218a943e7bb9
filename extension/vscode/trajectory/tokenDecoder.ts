import * as vscode from 'vscode';
import { errorText } from '../../core/errors';
import { PolicyClient } from '../../core/policy/policyClient';
import { TokenServer } from '../../core/tokens/tokenServer';
import { ProtocolFailure } from '../../protocol/ipc';
import { stepsDetokenize } from '../../protocol/stepper';
import { tokenToDecode } from '../../views/tokenView';
import { readApiKey, readSettings } from '../settings';
import type { StepperSession } from './stepperSession';

/**
 * Decodes the tokens a recording keeps as ids only through the configured policy server's
 * `/detokenize` (vLLM's). One connection per server, model and key, kept while they stay the same.
 */
export class TokenDecoder {
  private connection: { key: string; server: Promise<TokenServer> } | undefined;

  constructor(private readonly secrets: vscode.SecretStorage) {}

  /** Answers the stepper's `steps/detokenize` for the file `session` shows. */
  register(session: StepperSession): void {
    session.messenger.onRequest(stepsDetokenize, async ({ index, position }) => {
      const source = await session.document.source();
      if (index >= source.stepCount) throw new ProtocolFailure('not-found', `${session.document.fileName} has no step ${index + 1}`);
      const token = tokenToDecode(await source.step(index), position);
      if ('text' in token) return { text: token.text };
      if ('reason' in token) throw new ProtocolFailure('not-found', token.reason);
      return { text: await this.decode(token.id) };
    });
  }

  private async decode(id: number): Promise<string> {
    const { url, model } = readSettings().policy;
    if (!url.trim())
      throw new ProtocolFailure(
        'not-found',
        `the file keeps token ${id} as an id only, and no policy server is configured to decode it (sweWorkbench.policy.url)`,
      );
    const apiKey = await readApiKey(this.secrets);
    const key = JSON.stringify([url, model, apiKey ?? ''] as const);
    if (this.connection?.key !== key) {
      const server = PolicyClient.connect({ baseUrl: url, ...(model ? { model } : {}), ...(apiKey ? { apiKey } : {}) }).then(
        (client) => new TokenServer(client),
      );
      this.connection = { key, server };
      // A server that could not be reached is asked again next time.
      server.catch(() => {
        if (this.connection?.key === key) this.connection = undefined;
      });
    }
    try {
      return await (await this.connection.server).detokenize([id]);
    } catch (error) {
      throw new ProtocolFailure('not-found', `token ${id}: the policy server at ${url} could not decode it: ${errorText(error)}`);
    }
  }
}
