// Starts a sandbox labelled with the session given as argv[2], prints its id and exits without
// disposing it, as a crashing tool would.
import { DockerSandbox } from '../../../extension/core/runtime/dockerSandbox';
import { SESSION_LABEL } from '../../../extension/core/runtime/sandboxLabels';
import { TEST_IMAGE } from '../../helpers/docker';

void DockerSandbox.create({ image: TEST_IMAGE, repoPath: '/testbed', labels: { [SESSION_LABEL]: process.argv[2]! } }).then((sb) => {
  process.stdout.write(sb.id + '\n');
  process.exit(3);
});
