// Writes docs/extension.md, the page the Marketplace and VS Code's Extensions view show, from the
// README: its title, tagline and feature list, so the two never say different things; then what
// a person who installed the extension (and has no clone) needs. `--check` exits 1 when the
// committed page is not what this would write (the docs test runs it).
import { readFileSync, writeFileSync } from 'node:fs';

const root = new URL('..', import.meta.url).pathname;
const target = `${root}docs/extension.md`;

export function extensionReadme(readme) {
  const lines = readme.split('\n');
  const end = lines.findIndex((l) => l.startsWith('It is a VS Code extension'));
  if (end < 0) throw new Error("README.md: the line 'It is a VS Code extension ...' after the feature list is missing");
  const features = lines.slice(0, end).join('\n').trimEnd();
  // The README's relative links lead nowhere on the Marketplace.
  if (/\]\((?!https?:)[^)]*\)/.test(features)) throw new Error('README.md: the feature list links a file of the repository');
  return `${features}

Open a trajectory file to start (\`.traj\`, \`.traj.json\`, or any other format through *Open
With… > SWE Workbench Trajectory*), or run *SWE Workbench: Check Setup* to see what the machine
needs (a Docker engine for replays and forks). The activity bar's SWE Workbench views hold the
rollouts of a run, the running session and the bug artifacts. Nothing runs in an untrusted
workspace.

This page is made from the project's README (its feature list); the README, with the demo and
the documentation, is in the extension's source repository.
`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const page = extensionReadme(readFileSync(`${root}README.md`, 'utf8'));
  if (process.argv.includes('--check')) {
    if (readFileSync(target, 'utf8') !== page) {
      console.error('docs/extension.md is not what the README gives: run node scripts/extension-readme.mjs');
      process.exit(1);
    }
  } else writeFileSync(target, page);
}
