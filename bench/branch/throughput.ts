/**
 * Branch runs (core/branch/branchRun.ts) at concurrency 1, 2 and 4, side by side in one run: the
 * same recording, policy and states each time (the branch-values scenario of the integration
 * test: three states, a scripted policy on 127.0.0.1, continuations of one or two steps on the
 * sample repository), each concurrency in a fresh folder. Prints continuations per minute and, from
 * each continuation's timings in index.json, the median time spent starting its container and
 * restoring the snapshot, waiting for the policy, running the episode, and grading and saving; and
 * the ratio of each concurrency's throughput to concurrency 1's. With the machine and the date.
 * Usage: node --import tsx bench/branch/throughput.ts [--samples K] [--concurrency 1,2,4]
 */
import '../../test/helpers/families';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { runBranches } from '../../extension/core/branch/branchRun';
import { readTaskFile, runRequest } from '../../extension/core/branch/taskFile';
import { loadTrajectory } from '../../extension/core/trajectory/load';
import { startPolicyServer } from '../../scripts/demo/policy/scriptedPolicyServer';
import { answerPolicy, answerTask } from '../../test/helpers/branchScenario';
import { sampleRepoCopy } from '../../test/helpers/ledgerAgentScript';
import { median } from '../timing';

const { values } = parseArgs({ options: { samples: { type: 'string', default: '8' }, concurrency: { type: 'string', default: '1,2,4' } } });
const samples = Number(values.samples);
const levels = values.concurrency.split(',').map(Number);

interface Timings {
  startMs: number;
  policyMs: number;
  runMs: number;
  gradeMs: number;
}

async function main(): Promise<void> {
  const repo = await sampleRepoCopy();
  const server = await startPolicyServer(answerPolicy, { recordRequests: false });
  const work = await mkdtemp(path.join(tmpdir(), 'swb-bench-branch-'));
  try {
    const { taskFile, recordingFile } = await answerTask(work, repo);
    const recording = (await loadTrajectory(recordingFile)).trajectory;
    const task = await readTaskFile(taskFile);
    const request = {
      ...runRequest(task, taskFile, { fork: { trajectory: recording, ref: recordingFile, at: 0 } }),
      recording: { trajectory: recording, ref: recordingFile },
    };
    console.log(
      `branch runs: 3 states x ${samples} samples; ${cpus().length} cores, ${Math.round(totalmem() / 1024 ** 3)} GB, load ${loadavg()[0]!.toFixed(2)}; ${new Date().toISOString()}`,
    );
    console.log('concurrency  continuations  wall s  per min  vs c=1   start+restore  policy  episode  grade+save   (medians, ms)');
    let base: number | undefined;
    for (const concurrency of levels) {
      const out = path.join(work, `c${concurrency}`);
      const started = performance.now();
      const result = await runBranches({
        request,
        steps: [0, 1, 2],
        samples,
        concurrency,
        maxSteps: 5,
        policy: { baseUrl: server.url, model: 'test-policy', sampling: { temperature: 1, seed: 1 } },
        out,
      });
      const seconds = (performance.now() - started) / 1000;
      const index = JSON.parse(await readFile(path.join(out, 'index.json'), 'utf8')) as { points: { continuations: { timings: Timings }[] }[] };
      const timings = index.points.flatMap((p) => p.continuations.map((c) => c.timings));
      const perMinute = (result.ran / seconds) * 60;
      base ??= perMinute;
      const m = (key: keyof Timings) => String(Math.round(median(timings.map((t) => t[key])))).padStart(6);
      console.log(
        `${String(concurrency).padStart(11)}  ${String(result.ran).padStart(13)}  ${seconds.toFixed(1).padStart(6)}  ${perMinute.toFixed(1).padStart(7)}  ${(perMinute / base).toFixed(2).padStart(5)}x   ${m('startMs')}         ${m('policyMs')}  ${m('runMs')}   ${m('gradeMs')}`,
      );
    }
  } finally {
    await server.close();
    await repo.cleanup();
    await rm(work, { recursive: true, force: true });
  }
}

void main();
