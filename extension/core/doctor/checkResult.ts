export type CheckStatus = 'ok' | 'warn' | 'fail' | 'skipped';

/** One check of the setup, as `doctor` and *Check Setup* show it. */
export interface CheckResult {
  id: 'docker' | 'image' | 'code-server' | 'pyright' | 'policy' | 'disk';
  title: string;
  status: CheckStatus;
  /** What was found, or what is wrong. */
  detail: string;
  /** The command or setting that fixes it (problems only). */
  fix?: string;
  /** A failed required check makes the setup unusable (the CLI exits 1). */
  required: boolean;
}
