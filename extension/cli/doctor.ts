/**
 * `swe-workbench doctor`: checks what the workbench needs on this machine (extension/core/doctor)
 * and prints each problem with its fix. Exit code 1 when a required check fails.
 */
import { tmpdir } from 'node:os';
import { delimiter } from 'node:path';
import { DEFAULT_TOOLS_DIR, doctorExitCode, formatDoctor, runDoctor } from '../core/doctor/doctor';
import { DEFAULT_BASE_IMAGE } from '../core/runtime/baseImage';
import { CliError, parseCommandArgs, type Command } from './command';

const USAGE = `usage: swe-workbench doctor [--image IMAGE] [--policy-url URL] [--model NAME] [--api-key KEY]
                            [--docker-host HOST] [--tools DIR] [--json]

Checks the Docker engine and its version, the image (default ${DEFAULT_BASE_IMAGE}), code-server,
Pyright, the policy server and its model, and free disk space; prints the fix for each problem.
--policy-url / --model default to $SWE_WORKBENCH_POLICY_URL / $SWE_WORKBENCH_POLICY_MODEL;
--docker-host to $DOCKER_HOST; --tools to $SWE_WORKBENCH_TOOLS or ${DEFAULT_TOOLS_DIR}.
Exit code: 0 when every required check (engine, image, Pyright, disk) passes, 1 otherwise.`;

export const command: Command = {
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(argv, {
      image: { type: 'string' },
      'policy-url': { type: 'string' },
      model: { type: 'string' },
      'api-key': { type: 'string' },
      'docker-host': { type: 'string' },
      tools: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    });
    if (values.help) {
      ctx.stdout.write(USAGE + '\n');
      return 0;
    }
    if (positionals.length > 0) throw new CliError(`unexpected argument '${positionals[0]}'\n\n${USAGE}`);
    const env = process.env;
    const host = values['docker-host'] ?? env.DOCKER_HOST;
    const policyUrl = values['policy-url'] ?? env.SWE_WORKBENCH_POLICY_URL;
    const model = values.model ?? env.SWE_WORKBENCH_POLICY_MODEL;
    const results = await runDoctor({
      image: values.image ?? DEFAULT_BASE_IMAGE,
      ...(host ? { docker: { host } } : {}),
      ...(policyUrl ? { policyUrl } : {}),
      ...(model ? { model } : {}),
      ...(values['api-key'] ? { apiKey: values['api-key'] } : {}),
      toolsDir: values.tools ?? env.SWE_WORKBENCH_TOOLS ?? DEFAULT_TOOLS_DIR,
      // A terminal of the demo's code-server has that code-server's folders on its PATH.
      runningFrom: (env.PATH ?? '').split(delimiter),
      diskPaths: [tmpdir()],
      signal: ctx.signal,
    });
    ctx.stdout.write(values.json ? JSON.stringify(results, null, 2) + '\n' : formatDoctor(results) + '\n');
    return doctorExitCode(results);
  },
};
