/**
 * The Docker labels every sandbox container carries (docs/cli.md names them): how
 * `swe-workbench image cleanup`, and anyone with `docker ps --filter label=...`, finds the
 * workbench's containers, the process that made each and the session it belongs to.
 */

export const SANDBOX_LABEL = 'swe-workbench.sandbox';

/** `<hostname>:<pid>` of the process that created the container. */
export const OWNER_LABEL = 'swe-workbench.owner';

export const SESSION_LABEL = 'swe-workbench.session';
