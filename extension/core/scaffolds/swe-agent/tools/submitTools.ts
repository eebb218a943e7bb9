import { z } from 'zod';
import { currentPatch } from '../../../aci/repositoryPatch';
import { defineTool, type ToolResult } from '../../../aci/toolDefinition';
import { viewer } from './toolState';

/**
 * `submit` (`tools/submit`) and its reviewing variant (`tools/review_on_submit_m`). The patch is
 * `currentPatch` (core/aci/repositoryPatch.ts).
 */

/** SWE-agent's default review message (config/default.yaml), shown once before the real submit. */
const DEFAULT_SUBMIT_REVIEW_MESSAGE = `Thank you for your work on this issue. Please carefully follow the steps below to help review your changes.

1. If you made any changes to your code after running the reproduction script, please run the reproduction script again.
  If the reproduction script is failing, please revisit your changes and make sure they are correct.
  If you have already removed your reproduction script, please ignore this step.
2. Remove your reproduction script (if you haven't done so already).
3. If you have modified any TEST files, please revert them to the state they had before you started fixing the issue.
  You can do this with \`git checkout -- /path/to/test/file.py\`. Use below <diff> to find the files you need to revert.
4. Run the submit command again to confirm.

Here is a list of all of your changes:

<diff>
{{diff}}
</diff>
`;

function submitted(patch: string, observation: string): ToolResult {
  return { observation, exitCode: 0, submission: patch };
}

const submit = defineTool({
  name: 'submit',
  bundle: 'submit',
  description: 'submits the current file',
  signature: 'submit',
  parameters: z.object({}),
  async run(ctx) {
    const diff = await currentPatch(ctx);
    if ('observation' in diff) return diff;
    // Recordings of this bundle show the terminal text between the submission markers, which
    // starts with the first marker's line break (and has a pty's line ends when there was one).
    const shown = `\n${diff.patch}`;
    return submitted(diff.patch, ctx.config.crlf ? shown.replace(/\n/g, '\r\n') : shown);
  },
});

const reviewedSubmit = defineTool({
  name: 'submit',
  bundle: 'review_on_submit_m',
  description: 'submits the current file',
  signature: 'submit [--force]',
  parameters: z.object({ force: z.boolean().optional().describe('submit without the review step') }),
  async run(ctx, { force }) {
    const diff = await currentPatch(ctx);
    if ('observation' in diff) return diff;
    const { patch } = diff;
    const messages = ctx.config.submitReviewMessages ?? [DEFAULT_SUBMIT_REVIEW_MESSAGE];
    const message = messages[viewer(ctx).submitStage];
    if (!force && message !== undefined) {
      viewer(ctx).submitStage += 1;
      return { observation: message.replaceAll('{{diff}}', patch), exitCode: 0 };
    }
    // SWE-agent 1.0.1 recordings of this bundle show the patch itself as the observation.
    return submitted(patch, patch);
  },
});

export const submitTools = [submit];
export const reviewedSubmitTools = [reviewedSubmit];
