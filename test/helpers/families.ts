/**
 * The program's scaffold families and their trajectory formats, installed as `extension/families.ts`
 * installs them where the CLI and the extension start. A test file that reads a recording, chooses
 * a scaffold or runs a CLI command imports this module first, so a one-file run
 * (`node --import tsx --test FILE`) needs nothing more.
 */
import { installScaffoldFamilies } from '../../extension/families';

installScaffoldFamilies();
