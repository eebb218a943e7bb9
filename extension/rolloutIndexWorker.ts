/**
 * The entry of the rollout index's worker thread (started by core/rollouts/workerIndexer.ts): a
 * thread starts with nothing installed, so the scaffold families and their trajectory formats are
 * installed here, as the CLI's main and the extension's activation install them, before it indexes.
 */
import { installScaffoldFamilies } from './families';
import { runIndexWorker } from './core/rollouts/indexWorker';

installScaffoldFamilies();
runIndexWorker();
