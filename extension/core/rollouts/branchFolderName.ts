/**
 * Where a recording's branch run is kept: `RECORDING.branches`, beside it (`swe-workbench branch`
 * writes there by default, and VS Code looks there). Its continuations belong to that branch run,
 * not to the rollouts folder the recording sits in: the listing leaves such a folder out.
 */
const BRANCH_FOLDER_SUFFIX = '.branches';

export function branchFolderOf(recordingFile: string): string {
  return `${recordingFile}${BRANCH_FOLDER_SUFFIX}`;
}

/** The recording a folder named `name` keeps the branch run of, when its name says so. */
export function recordingOfBranchFolder(name: string): string | undefined {
  return name.endsWith(BRANCH_FOLDER_SUFFIX) && name.length > BRANCH_FOLDER_SUFFIX.length ? name.slice(0, -BRANCH_FOLDER_SUFFIX.length) : undefined;
}
