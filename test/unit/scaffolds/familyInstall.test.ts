/**
 * The families are composed once, where the program starts (`extension/families.ts`); what they
 * contribute (formats, tool kinds) goes into registries that refuse a second, different answer
 * instead of letting the later one win silently.
 */
import '../../helpers/families';
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { installScaffoldFamilies } from '../../../extension/families';
import { sweAgentFamily } from '../../../extension/core/scaffolds/swe-agent';
import { installFamilies, knownScaffolds } from '../../../extension/core/scaffolds/registry';
import { actionKind, registerToolKinds } from '../../../extension/core/trajectory/actionKind';
import { formatNamed, formatNames, registerFormat } from '../../../extension/core/trajectory/formatRegistry';
import { detectFormat } from '../../../extension/core/trajectory/detectFormat';

describe('installing the scaffold families', () => {
  test('installing the same families again changes nothing; another list is refused', () => {
    const before = knownScaffolds();
    installScaffoldFamilies();
    assert.deepEqual(knownScaffolds(), before);
    assert.throws(() => installFamilies([sweAgentFamily], { family: sweAgentFamily, title: 'SWE-agent' }), /already installed, as another list/);
  });

  test("each family's own recording format is registered with the family, before the generic ones", () => {
    assert.deepEqual(formatNames().slice(0, 4), ['swe-agent', 'mini-swe-agent', 'r2e-gym', 'openhands']);
    assert.equal(formatNamed('swe-agent')?.exporter?.extension, '.traj');
    assert.equal(detectFormat({ trajectory: [], history: [] }), 'swe-agent');
  });

  test('a second format under a registered name is refused, naming it', () => {
    const other = { ...formatNamed('r2e-gym')! };
    assert.throws(() => registerFormat(other), /trajectory format 'r2e-gym' is registered twice/);
    registerFormat(formatNamed('r2e-gym')!);
  });

  test("a family's tools get their kinds from the family; two kinds for one tool are refused", () => {
    assert.equal(actionKind({ tool: 'scroll_down', args: {} }), 'view');
    assert.equal(actionKind({ tool: 'file_editor', args: { command: 'create' } }), 'create');
    assert.throws(() => registerToolKinds({ scroll_down: 'edit' }), /tool 'scroll_down' is registered as view and as edit/);
  });
});
