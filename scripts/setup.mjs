// `bash scripts/setup.sh`: installs and starts everything the tests and the demo need on a fresh
// Debian 12 machine (a two-node Slurm cluster on this host included), every step skipped when its result is already there. The steps are the
// ones `npm start` runs (scripts/setup-steps.mjs); here every one is required.
import {
  build,
  ensureBaseImage,
  ensureCodeServer,
  ensureDocker,
  ensureSlurm,
  ensureNodeModules,
  ensurePackages,
  PACKAGES,
  reexecOnSupportedNode,
  reportingSetupErrors,
} from './setup-steps.mjs';

const started = Date.now();
await reportingSetupErrors(() => {
  ensurePackages(Object.keys(PACKAGES));
  reexecOnSupportedNode();
  ensureDocker();
  ensureSlurm();
  ensureNodeModules();
  build();
  ensureBaseImage();
  ensureCodeServer();
});
console.log(`setup: ready in ${((Date.now() - started) / 1000).toFixed(0)} s (Node ${process.versions.node})`);
