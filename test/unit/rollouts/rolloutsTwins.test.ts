import '../../helpers/families';
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { command } from '../../../extension/cli/rollouts';
import { indexRollouts } from '../../../extension/core/rollouts/rolloutIndex';
import { runStatistics } from '../../../extension/core/rollouts/rolloutQuery';
import { findRollouts } from '../../../extension/core/rollouts/rolloutSearch';
import type { RolloutQuery } from '../../../extension/protocol/rollouts';
import { querySpec } from '../../../extension/views/rolloutTable';
import { runCli } from '../../helpers/cliRunner';
import { suiteRolloutFolder } from '../../fixtures/rollouts/trainingRun';
import { thirdPartyFiles } from '../../helpers/trajectoryFiles';

describe('the CLI and the rollouts table answer the same query alike (one core path)', () => {
  const folder = suiteRolloutFolder();

  const queries: RolloutQuery[] = [
    { filter: '', search: '', sort: null },
    { filter: 'steps>5', search: '', sort: { column: 'steps', descending: true } },
    { filter: 'resolved!=none', search: 'reproduce', sort: { column: 'instance', descending: false } },
  ];

  for (const query of queries) {
    thirdPartyFiles.test(
      `filter '${query.filter}', search '${query.search}', sort ${JSON.stringify(query.sort)}: same rows in the same order, same statistics`,
      async () => {
        const root = folder.run;
        const args = [root, '--json'];
        if (query.filter) args.push('--filter', query.filter);
        if (query.search) args.push('--search', query.search);
        if (query.sort) args.push(`--sort=${query.sort.descending ? '-' : ''}${query.sort.column}`);
        const cli = JSON.parse((await runCli(command, args)).stdout) as { rollouts: { id: string }[]; statistics: unknown };

        // The table panel's path: index, its query in the core's terms, the core's find (the panel adds only a cache).
        const index = await indexRollouts(root);
        const { rows } = await findRollouts(index, querySpec(query), { maxHitsPerRollout: 1 });
        assert.deepEqual(
          rows.map((r) => r.id),
          cli.rollouts.map((r) => r.id),
        );
        assert.deepEqual(runStatistics(rows).statistics, cli.statistics);
        assert.ok(rows.length > 0);
      },
    );
  }
});
