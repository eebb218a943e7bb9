import { parseUnifiedDiff, type FilePatch } from '../diff/unifiedDiff';
import { term, type Reward } from './rewardTerms';
import { stringRatio } from '../diff/sequenceMatcher';
import { errorText } from '../errors';

export interface PatchSimilarityOptions {
  /** Python's autojunk; SWE-RL turns it off so long patches are not judged on rare characters only. */
  autojunk?: boolean;
}

/**
 * SWE-RL's reward: no execution; each file's change in the predicted patch is compared with the
 * gold change of that file (difflib ratio), a file changed on one side only scores 0, and the
 * reward is the mean over the files; a prediction that is not a readable diff scores -1.
 */
export function patchSimilarityReward(gold: string, predicted: string | undefined, options: PatchSimilarityOptions = {}): Reward {
  const rule = 'SWE-RL: mean difflib.SequenceMatcher ratio per changed file; -1 when malformed';
  const goldFiles = byPath(parseUnifiedDiff(gold, 'gold patch'));
  let predictedFiles: Map<string, string>;
  try {
    if (predicted === undefined || predicted.trim() === '') throw new Error('empty');
    predictedFiles = byPath(parseUnifiedDiff(predicted, 'predicted patch'));
    if (predictedFiles.size === 0) throw new Error('no file changes');
  } catch (err) {
    return { value: -1, terms: [term('format', -1, `${rule} (${errorText(err)})`)] };
  }
  const paths = [...new Set([...goldFiles.keys(), ...predictedFiles.keys()])].sort();
  const ratios = paths.map((p) => stringRatio(goldFiles.get(p) ?? '', predictedFiles.get(p) ?? '', options.autojunk ?? false));
  const terms = paths.map((p, i) => term(`similarity ${p}`, ratios[i]!, rule));
  const value = ratios.reduce((s, r) => s + r, 0) / ratios.length;
  return { value, terms: [term('format', 0, 'SWE-RL: a readable diff adds nothing'), ...terms] };
}

// The hunks only: `index` hashes and header spelling differ between tools and say nothing.
function byPath(files: readonly FilePatch[]): Map<string, string> {
  const map = new Map<string, string>();
  for (const f of files) {
    const body = f.hunks.map((h) => `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@\n${h.lines.join('\n')}\n`).join('');
    map.set((f.newPath ?? f.oldPath) as string, (map.get((f.newPath ?? f.oldPath) as string) ?? '') + body);
  }
  return map;
}
