/**
 * The composition root of the scaffold families: the one list of the agent frameworks the program
 * knows, in the order detection asks them. The CLI's main and the extension's activation install
 * it before anything reads a recording; a test that reads one imports `test/helpers/families.ts`.
 * Adding a family is its folder under core/scaffolds and one line here; the default family is declared here too.
 */
import { installFamilies } from './core/scaffolds/registry';
import { miniSweAgentFamily } from './core/scaffolds/mini-swe-agent';
import { openHandsFamily } from './core/scaffolds/openhands';
import { openHandsV1Family } from './core/scaffolds/openhands-v1';
import { r2eGymFamily } from './core/scaffolds/r2e-gym';
import { sweAgentFamily } from './core/scaffolds/swe-agent';
import { terminus2Family } from './core/scaffolds/terminus-2';

export function installScaffoldFamilies(): void {
  // A recording no family claims (a canonical or chat-messages file) is read with SWE-agent's tools, and a live run without --scaffold runs them.
  installFamilies([sweAgentFamily, miniSweAgentFamily, r2eGymFamily, openHandsFamily, openHandsV1Family, terminus2Family], {
    family: sweAgentFamily,
    title: 'SWE-agent',
  });
}
