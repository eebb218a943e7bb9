import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DEMO_IMAGE, DEMO_MODEL } from '../../scripts/demo/ledgerDemo';
import { writeTrainingRun } from '../fixtures/rollouts/trainingRun';
import { materializeSampleRepo } from './sampleRepo';

const repoRoot = path.resolve(__dirname, '../..');

/**
 * Lays out the demo `npm start` serves in `home`/demo and returns its .code-workspace file: two
 * folders, `workbench` (the trajectories this project recorded, a bug to validate, a rollouts
 * folder of a generated training run) and `sample-repo` (the sample repository with its history,
 * the repository replays run on), and settings pointing the policy at `policyUrl`.
 */
export async function layOutDemoWorkspace(home: string, policyUrl: string): Promise<string> {
  const demo = path.join(home, 'demo');
  const workbench = path.join(demo, 'workbench');
  mkdirSync(workbench, { recursive: true });
  cpSync(path.join(repoRoot, 'demo/trajectories'), path.join(workbench, 'trajectories'), { recursive: true });
  cpSync(path.join(repoRoot, 'test/fixtures/bugs/valid-allocate-and-close'), path.join(workbench, 'bugs/valid-allocate-and-close'), { recursive: true });
  writeTrainingRun(path.join(workbench, 'rollouts'));
  await materializeSampleRepo(path.join(demo, 'sample-repo'));
  const file = path.join(demo, 'demo.code-workspace');
  const settings = {
    // The scripted stand-in policy this demo started: "Run Live" and a fork continued by the policy ask it.
    'sweWorkbench.policy.url': policyUrl,
    'sweWorkbench.policy.model': DEMO_MODEL,
    'sweWorkbench.docker.image': DEMO_IMAGE,
    'sweWorkbench.rollouts.folder': 'rollouts',
  };
  writeFileSync(file, JSON.stringify({ folders: [{ path: 'workbench' }, { path: 'sample-repo' }], settings }, null, 2));
  return file;
}
