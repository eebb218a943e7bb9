/**
 * Snapshots for forking without replaying. Every session the launcher starts keeps, after each
 * step, a tar of its repository (inside its own container, under `FORK_SNAPSHOT_DIR`) and a copy of
 * the tools' state (`AciSession.toolState`, in memory), keyed by the actions that led there. A
 * fork at step k of a recording looks for a live session of the same setup whose first j <= k
 * actions were the recording's (a replay of it, or an earlier fork), starts the fork's container
 * with an empty repository folder, copies that snapshot's tars into it straight from the source's
 * container (single files: no host copy, and no tree for the engine to unpack, which cost several
 * times more on a large repository), extracts them with the container's own tar and replays only
 * steps j..k-1.
 *
 * Why tars in the session's container rather than `docker commit`: a tar through the session's
 * shell costs a fraction of a commit per step (bench/session/fork.ts; figures in bench/RESULTS.md).
 *
 * Why differentials: a whole tar per step costs what the repository weighs. So a session's first
 * snapshot is a level-0 dump with GNU tar's `--listed-incremental` state, and each later one a
 * differential against a copy of that state (tar compares mtime and ctime, and records every
 * folder's listing, so extracting over the dump also removes what was deleted): a restore is
 * always the dump plus one differential. Below `DIFFERENTIAL_MIN_BYTES` whole tars are kept, since
 * there a differential saves nothing and makes a restore slower. A step in which tar saw a folder
 * renamed (really or by inode reuse), which extraction cannot always redo, takes a new dump, as
 * does the step after a differential grew past half its dump; an image without GNU tar takes the
 * whole repository every step. Git's objects are the exception to tar's comparison of times: git
 * re-stamps an object whenever it would write it again (after a repository is copied, the first
 * `git add -A` re-reads every file), which put all of `.git/objects` in every differential. They
 * are named by their content, so a differential carries those whose names are new since the dump;
 * an object gone since (a gc) makes the step a new dump.
 *
 * Why images of dumps: a fork of a large repository spent its seconds writing the dump into its
 * container again. In a Docker session each dump of at least `IMAGE_MIN_BYTES` is, in the
 * background, extracted into a container of the session's image beside it and committed; a fork
 * from that dump starts its container from the image and takes only the differential. A fork that
 * comes while the image is being made waits for it: extracting the dump beside the build would do
 * the same copy twice at once, on the same disk. A failed image leaves the fork to extract the dump
 * as before; the image goes with the dump.
 *
 * Identical consecutive tars share one file (equal bytes over the same dump are an equal
 * repository). A session keeps at most `budgetBytes` of them, each dump counted once; over it,
 * every other snapshot goes (a dump stays while a kept differential needs it), so a fork then
 * replays at most a few steps.
 *
 * The snapshots live as long as their session (`dispose` at `DebugSession.finish`), unless it was
 * started with a `SnapshotKeeper`: then its container stays after `finish`, holding them, until
 * the keeper lets them go (VS Code's session controller owns one, because it stops the running
 * session before it starts a fork). Files outside the repository and the shell's variables are
 * not in a snapshot; the repository (with .git), the tools' state and the working directory are.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { AciSession, AciToolState } from '../aci/aciSession';
import type { ToolSet } from '../aci/toolRegistry';
import { errorText } from '../errors';
import { FORK_SNAPSHOT_DIR } from '../runtime/containerPaths';
import { DockerSandbox } from '../runtime/dockerSandbox';
import type { Sandbox } from '../runtime/sandbox';
import { bashQuote } from '../runtime/shellSession';
import type { Step } from '../trajectory/model';

/** Snapshot bytes a session keeps by default before thinning them out. */
const DEFAULT_SNAPSHOT_BUDGET_BYTES = 1024 ** 3;

const SNAPSHOT_TIMEOUT_MS = 10 * 60_000;
/** A differential smaller than this never starts a new level-0 dump (tar pads every archive to 10 KB). */
const REBASE_MIN_BYTES = 1024 ** 2;
/** A repository whose whole tar is smaller than this is snapshotted whole every step (see the module's comment). */
const DIFFERENTIAL_MIN_BYTES = 8 * 1024 ** 2;
/**
 * Git's loose-object folders and its packs, as `find -path` patterns from the repository. Their files are named by their
 * content and never change, but git re-stamps an object's times whenever it would write it again (`git add -A` over an
 * unchanged tree does, for every file it re-reads), so tar's comparison of times would put all of them in every differential.
 */
const OBJECT_PATHS = ['./.git/objects/[0-9a-f][0-9a-f]', './.git/objects/[0-9a-f][0-9a-f]/*', './.git/objects/pack', './.git/objects/pack/*'];
/**
 * A level-0 dump at least this large gets an image (see the module's comment): below it, extracting the dump costs no more
 * than starting a container from an image.
 */
const IMAGE_MIN_BYTES = 24 * 1024 ** 2;
/** How far back a level-0 dump's time is moved (see `take`). */
const SNAR_SHIFT_NS = 100_000_000;

/** A tar in the session's container: a whole repository, or a differential over a level-0 dump. */
interface TarFile {
  file: string;
  bytes: number;
  digest: string;
  /** A level-0 dump's snapshot file (GNU tar's `--listed-incremental` state), which differentials start from. */
  snar?: string;
  /** A level-0 dump's image: the session's image with the dump in its repository folder, committed in the background. */
  image?: { made: Promise<string | undefined>; id?: string; dropped?: boolean };
}

interface Kept {
  /** The repository's tar, or (with `base`) the differential that turns `base` into the repository. */
  tar: TarFile;
  base?: TarFile;
  tools: AciToolState;
}

/** A snapshot found for a fork: the step it stands before and how to put it into another session. */
export interface FoundSnapshot {
  /** Steps 0..at-1 are in it; the fork replays the rest. */
  at: number;
  /** The source session's steps 0..at-1, as the fork's history. */
  steps: Step[];
  /** Where the snapshot's tars sit in its session's container: the repository or level-0 dump, and the differential over it. */
  files: { whole: string; differential?: string };
  /**
   * The image (id) that holds the level-0 dump in its repository folder, made or being made: a
   * fork's container starts from it. It settles to undefined when making it failed or the dump went.
   */
  image?: Promise<string | undefined>;
  /**
   * Puts the snapshot into `target`, whose repository folder is empty: copies the snapshot's tars
   * (the repository, or the level-0 dump and the differential over it) from its session's
   * container straight into the target's, extracts them there (one command), then the tools' state.
   * With `fromImage`, `target` was started from `image`: only the differential goes in.
   */
  restore(target: AciSession, signal?: AbortSignal, fromImage?: boolean): Promise<void>;
}

/** One action as a key: the tool (read with the session's tools when the recording could not name it) and the text. */
function actionKey(step: Pick<Step, 'action' | 'formatError'>, tools: Pick<ToolSet, 'parseCommand'>): string {
  let { tool, args } = step.action;
  if (tool === null && step.formatError === undefined) {
    const parsed = tools.parseCommand(step.action.raw);
    if (!('error' in parsed)) ({ tool, args } = parsed);
  }
  return JSON.stringify([tool, step.formatError === undefined ? args : null, step.action.raw]);
}

function chain(previous: string, key: string): string {
  return createHash('sha256').update(previous).update('\0').update(key).digest('hex');
}

/** Orders uses of snapshots, for the keeper's least-recently-used rule. */
let useClock = 0;

/** Shell: reads `tar --totals`' count of bytes from `totals` into `s` (tar may have warned before it). */
function readTotal(totals: string): string {
  return `s= && while read -r a b c n _; do [ "$a $b $c" != 'Total bytes written:' ] || s=$n; done < ${totals} && [ -n "$s" ]`;
}

/**
 * Copies `tars` (a whole repository or level-0 dump first, then a differential over it, or a differential alone) from
 * `source`'s container straight into `target`'s and extracts them there by its own tar, in one command: the engine's
 * unpacking of a whole tree costs several times more. With `clear`, what the target's repository folder holds goes first
 * (an image that carries the repository has it there), so that what the snapshot lacks is gone.
 */
async function putTars(what: string, source: Sandbox, tars: readonly TarFile[], target: Sandbox, clear: boolean, signal?: AbortSignal): Promise<void> {
  const q = bashQuote;
  const repo = q(target.repoPath);
  if (tars.length === 0) return;
  const inside = `${FORK_SNAPSHOT_DIR}/restore-${createHash('sha256').update(`${Date.now()}${Math.random()}`).digest('hex').slice(0, 12)}`;
  const made = await target.exec(`mkdir -p ${q(inside)}`, { timeoutMs: 60_000 });
  if (made.exitCode !== 0) throw new Error(`could not make ${inside} in the target container: ${made.output.slice(-500)}`);
  try {
    await Promise.all(tars.map((tar) => source.copyTo(tar.file, target, inside)));
  } catch (err) {
    await target.exec(`rm -rf ${q(inside)}`, { timeoutMs: 60_000 }).catch(() => undefined);
    throw new Error(`could not copy ${what} out of its session's container: ${errorText(err)}`, { cause: err });
  }
  // A differential (every tar after a dump, and a tar alone over an image's dump) is extracted as one: it also removes what
  // it does not list from the folders it lists.
  const file = (tar: TarFile) => q(`${inside}/${path.posix.basename(tar.file)}`);
  const extract = [
    ...(clear ? [`find ${repo} -mindepth 1 -maxdepth 1 -exec rm -rf {} +`] : []),
    ...tars.map((tar, i) => `LC_ALL=C tar -C ${repo}${i > 0 || !clear ? ' --listed-incremental=/dev/null' : ''} -xf ${file(tar)}`),
  ].join(' && ');
  const r = await target.exec(`(${extract} 2>&1; x=$?; rm -rf ${q(inside)}; exit $x)`, {
    timeoutMs: SNAPSHOT_TIMEOUT_MS,
    ...(signal ? { signal } : {}),
  });
  if (r.exitCode !== 0 || r.timedOut) throw new Error(`extracting ${what} failed (exit ${r.exitCode}): ${r.output.slice(-500)}`);
}

/** The snapshots of one running (or kept) session. */
export class SessionSnapshots {
  /** When these snapshots were last kept or restored from (`SnapshotKeeper` lets the least recently used go first). */
  usedAt = ++useClock;
  /** `prefix[j]`: the hash of the session's first j actions. */
  private readonly prefix: string[];
  private readonly kept = new Map<number, Kept>();
  private stride = 1;
  private disposed = false;
  /** The snapshot folder exists. */
  private made = false;
  /** The level-0 dump later snapshots are differentials against (none yet, or the image's tar cannot make them). */
  private base: TarFile | undefined;
  /** Steps whose snapshot needed no tar: their action could not have changed the repository. */
  unchanged = 0;
  /** Why taking snapshots stopped, if it did (the session runs on without them). */
  failure: string | undefined;

  constructor(
    /** Image, repository, tools and settings: only a session with the same setup may use these snapshots. */
    readonly setup: string,
    readonly aci: AciSession,
    private readonly budgetBytes = DEFAULT_SNAPSHOT_BUDGET_BYTES,
    private readonly dir = `${FORK_SNAPSHOT_DIR}/${createHash('sha256').update(`${Date.now()}${Math.random()}`).digest('hex').slice(0, 12)}`,
    /**
     * Differentials against a level-0 dump (GNU tar's `--listed-incremental`) after the first
     * snapshot; false, or an image whose tar cannot, takes the whole repository every time.
     */
    private incremental = true,
    /** A level-0 dump smaller than this makes the session take whole tars after all (see the module's comment). */
    private readonly differentialMinBytes = DIFFERENTIAL_MIN_BYTES,
    /** A level-0 dump at least this large gets an image, in a Docker sandbox (`Infinity`: none). */
    private readonly imageMinBytes = IMAGE_MIN_BYTES,
    /** The image the session's own container was started from (a fork's may be a dump's image): a dump's image builds on it. */
    private readonly image?: string,
  ) {
    this.prefix = [chain('', setup)];
  }

  /** Steps that have a snapshot (each stands before that step). */
  get steps(): number[] {
    return [...this.kept.keys()].sort((a, b) => a - b);
  }

  /** Bytes of the distinct snapshot files kept (differentials and the level-0 dumps they need). */
  get bytes(): number {
    const files = new Map<string, number>();
    for (const tar of this.files()) files.set(tar.file, tar.bytes);
    return [...files.values()].reduce((a, b) => a + b, 0);
  }

  /** Whether later snapshots are differentials (false: the image's tar could not make them, or they were turned off). */
  get differential(): boolean {
    return this.incremental;
  }

  /** The files the kept snapshots need, and the level-0 dump the next differential starts from. */
  private files(): TarFile[] {
    const all = [...this.kept.values()].flatMap((k) => (k.base ? [k.tar, k.base] : [k.tar]));
    return this.base ? [...all, this.base] : all;
  }

  /** After a step: the hash of the actions so far, and a snapshot of the repository and tools. */
  async take(history: readonly Step[], signal?: AbortSignal): Promise<void> {
    const at = history.length;
    while (this.prefix.length <= at) this.prefix.push(chain(this.prefix.at(-1)!, actionKey(history[this.prefix.length - 1]!, this.aci.tools)));
    if (this.disposed || this.failure !== undefined || at % this.stride !== 0) return;
    // A step whose action could not run (a format error) or whose tool only reads (the viewer, the searches) left the
    // repository as the step before's snapshot has it: that snapshot again, with the tools' new state, and no tar.
    const last = history[at - 1]!;
    const before = this.kept.get(at - 1);
    const readOnly = last.formatError !== undefined || (last.action.tool !== null && this.aci.tools.tools.get(last.action.tool)?.readOnly === true);
    if (before && readOnly) {
      this.kept.set(at, { ...before, tools: this.aci.toolState() });
      this.unchanged++;
      return;
    }
    const { sandbox } = this.aci;
    const q = bashQuote;
    const file = q(`${this.dir}/${at}.tar`);
    const snar = q(`${this.dir}/${at}.snar`);
    const totals = q(`${this.dir}/totals`);
    const repo = q(sandbox.repoPath);
    const previous = [...this.kept.values()].at(-1);
    const base = this.incremental ? this.base : undefined;
    // Git's objects, loose and packed, by name (run in the repository; empty without a `.git/objects` folder). See `OBJECT_PATHS`.
    const listObjects = (to: string) =>
      `{ [ ! -d ${repo}/.git/objects ] || (cd ${repo} && LC_ALL=C find ./.git/objects -mindepth 1 -maxdepth 2 \\( ${OBJECT_PATHS.map((p) => `-path ${q(p)}`).join(' -o ')} \\) -print); } | LC_ALL=C sort > ${to}`;
    // A tar equal to the last one kept (a differential over the same dump, or a whole repository) is not kept twice.
    const same = (kind: 'diff' | 'full') =>
      q((kind === 'diff' ? previous?.base === base && base !== undefined : previous?.base === undefined) ? (previous?.tar.digest ?? '-') : '-');
    // The whole repository, its size (tar's totals) and digest. With `incremental`, first a level-0 dump's state (a dump to
    // /dev/null reads no file's contents), its time moved 0.1 s back: the kernel stamps files with a coarse clock that can lag
    // tar's by a tick, and a file changed just after the dump must not look older than it (an earlier time only adds files).
    const level0 =
      (this.incremental
        ? `{ LC_ALL=C tar -g ${snar}.0 -C ${repo} -cf /dev/null . && ${listObjects(`${snar}.objects`)} && { IFS= read -r h && IFS= read -r -d '' t && IFS= read -r -d '' n; } < ${snar}.0 && ` +
          `[[ $h == 'GNU tar-'*-2 && $t =~ ^[0-9]+$ && $n =~ ^[0-9]+$ ]] && e=$((t * 1000000000 + 10#$n - ${SNAR_SHIFT_NS})) && { printf '%s\\n%s\\0%s\\0' "$h" $((e / 1000000000)) $((e % 1000000000)) && tail -c +$((\${#h} + \${#t} + \${#n} + 4)) ${snar}.0; } > ${snar}; } 2>/dev/null && k=base || { k=full; rm -f ${snar} ${snar}.objects; }; rm -f ${snar}.0; `
        : 'k=full; ') +
      `d=$(LC_ALL=C tar --totals -C ${repo} -cf - . 2>${totals} | tee ${file} | md5sum; exit \${PIPESTATUS[0]}) && ${readTotal(totals)} && d=\${d%% *} && ` +
      `{ [ "$d" != ${same('full')} ] || rm -f ${file} ${snar} ${snar}.objects; } && echo "$s $d $k"`;
    // What changed since the level-0 dump (its state copied, so every differential is against it). Tar takes a directory
    // whose inode a deleted one had for that one renamed, which extraction cannot always redo: a renamed directory, real
    // or not, makes this step a new level-0 dump instead.
    // Git's object folders are left out of tar's comparison (their files are re-stamped whenever git would write them again)
    // and compared by name instead: the objects new since the dump are appended, and an object gone since (a gc) starts a dump.
    const next = q(`${this.dir}/next.snar`);
    const objects = q(`${this.dir}/objects`);
    const excluded = OBJECT_PATHS.filter((p) => !p.endsWith('/*'))
      .map((p) => `--exclude=${q(p)}`)
      .join(' ');
    const differential = base
      ? `cp ${q(base.snar!)} ${next} && LC_ALL=C tar -g ${next} --warning=rename-directory --anchored ${excluded} -C ${repo} -cf ${file} . 2>${totals} && ` +
        `[[ $(<${totals}) != *'has been renamed from'* ]] && ${listObjects(objects)} && [ -z "$(LC_ALL=C comm -23 ${q(`${base.snar!}.objects`)} ${objects})" ] && ` +
        `LC_ALL=C comm -13 ${q(`${base.snar!}.objects`)} ${objects} > ${objects}.new && { [ ! -s ${objects}.new ] || LC_ALL=C tar -C ${repo} --no-recursion -rf ${file} -T ${objects}.new; } && ` +
        `s=$(stat -c %s ${file}) && d=$(md5sum < ${file}) && d=\${d%% *} && { [ "$d" != ${same('diff')} ] || rm -f ${file}; } && echo "$s $d diff" || { rm -f ${file}; ${level0}; }`
      : level0;
    // One command in a subshell (its variables stay out of the session's shell).
    const result = await sandbox.exec(`(${this.made ? '' : `mkdir -p ${q(this.dir)} && `}${differential})`, {
      timeoutMs: SNAPSHOT_TIMEOUT_MS,
      ...(signal ? { signal } : {}),
    });
    this.made = true;
    const [size, digest, reported] = result.output.trim().split(/\s+/);
    let kind = reported;
    if (result.exitCode !== 0 || result.timedOut || !digest || (kind !== 'diff' && kind !== 'base' && kind !== 'full')) {
      this.failure = `snapshot after step ${at} failed (exit ${result.exitCode}): ${result.output.slice(-500)}`;
      return;
    }
    const tools = this.aci.toolState();
    const tar: TarFile = { file: `${this.dir}/${at}.tar`, bytes: Number(size), digest };
    // A small repository's whole tar costs no more than a differential, and a fork restores it without one more copy.
    if (kind === 'base' && tar.bytes < this.differentialMinBytes) kind = 'full';
    if (kind === 'full') this.incremental = false;
    if (kind === 'diff') {
      this.kept.set(at, previous?.base === base && previous?.tar.digest === digest ? { ...previous, tools } : { tar, base: base!, tools });
      // Each differential holds everything changed since its dump: once one is half as large, the next step starts a new dump.
      if (tar.bytes * 2 > base!.bytes && tar.bytes > REBASE_MIN_BYTES) this.base = undefined;
    } else if (previous && previous.base === undefined && previous.tar.digest === digest) {
      this.kept.set(at, { ...previous, tools });
    } else {
      if (kind === 'base') {
        this.base = { ...tar, snar: `${this.dir}/${at}.snar` };
        this.prepareImage(this.base);
      }
      this.kept.set(at, { tar: kind === 'base' ? this.base! : tar, tools });
    }
    if (this.bytes > this.budgetBytes) await this.thin();
  }

  /** Over the budget: keep every other snapshot, and take them half as often from now on. */
  private async thin(): Promise<void> {
    this.stride *= 2;
    const before = this.files();
    for (const step of this.steps.filter((s) => s % this.stride !== 0)) this.kept.delete(step);
    // A level-0 dump stays while a kept differential needs it, or the next one will.
    const live = new Set(this.files().map((tar) => tar.file));
    const gone = [
      ...new Set(before.filter((tar) => !live.has(tar.file)).flatMap((tar) => (tar.snar ? [tar.file, tar.snar, `${tar.snar}.objects`] : [tar.file]))),
    ];
    if (gone.length > 0) await this.aci.sandbox.exec(`rm -f ${gone.map(bashQuote).join(' ')}`, { timeoutMs: 60_000 });
    await Promise.all(before.filter((tar) => !live.has(tar.file)).map((tar) => this.dropImage(tar)));
  }

  /**
   * In the background, for a Docker session: a container of the session's image beside it, the dump extracted into its
   * repository folder (as a fork's restore does), committed as an image and removed. A fork from this dump then starts from
   * the image and takes only the differential. A failure leaves no image: forks extract the dump as before.
   */
  private prepareImage(dump: TarFile): void {
    const { sandbox } = this.aci;
    if (!(sandbox instanceof DockerSandbox) || dump.bytes < this.imageMinBytes) return;
    const image: NonNullable<TarFile['image']> = { made: Promise.resolve(undefined) };
    const make = async (): Promise<string | undefined> => {
      const helper = await sandbox.sibling('fork-image', this.image);
      try {
        await putTars('the level-0 dump', sandbox, [dump], helper, true);
        return image.dropped ? undefined : await helper.commit();
      } finally {
        await helper.dispose();
      }
    };
    image.made = make().then(
      (id) => (image.id = id),
      () => undefined,
    );
    dump.image = image;
  }

  /** Removes a dump's image once made (a fork running from it keeps it until the fork's container goes). */
  private async dropImage(tar: TarFile): Promise<void> {
    if (!tar.image || tar.image.dropped) return;
    tar.image.dropped = true;
    const id = await tar.image.made;
    if (id !== undefined && this.aci.sandbox instanceof DockerSandbox) await this.aci.sandbox.removeImage(id).catch(() => undefined);
  }

  /** The latest snapshot at or before `at` whose actions were `steps`' (keys read with `tools`). */
  find(steps: readonly Step[], at: number, tools: Pick<ToolSet, 'parseCommand'>, sourceSteps: readonly Step[]): FoundSnapshot | undefined {
    if (this.disposed) return undefined;
    let hash = chain('', this.setup);
    let best: number | undefined;
    for (let j = 1; j <= Math.min(at, this.prefix.length - 1); j++) {
      hash = chain(hash, actionKey(steps[j - 1]!, tools));
      if (hash !== this.prefix[j]) break;
      if (this.kept.has(j)) best = j;
    }
    if (best === undefined) return undefined;
    const kept = this.kept.get(best)!;
    const whole = kept.base ?? kept.tar;
    const made = whole.image;
    const image = made && !made.dropped ? made.made.then((id) => (made.dropped ? undefined : id)) : undefined;
    return {
      at: best,
      steps: sourceSteps.slice(0, best).map((step) => structuredClone(step)),
      files: { whole: whole.file, ...(kept.base ? { differential: kept.tar.file } : {}) },
      ...(image !== undefined ? { image } : {}),
      restore: async (target, signal, fromImage = false) => {
        this.usedAt = ++useClock;
        const tars = fromImage ? (kept.base ? [kept.tar] : []) : kept.base ? [kept.base, kept.tar] : [kept.tar];
        await putTars(`the snapshot after step ${best}`, this.aci.sandbox, tars, target.sandbox, !fromImage, signal);
        await target.restoreToolState(kept.tools, signal);
      },
    };
  }

  /** Forgets the snapshots and removes their files (the container's removal would too). */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    forkSnapshots.remove(this);
    const dumps = this.files();
    this.kept.clear();
    this.base = undefined;
    await Promise.all(dumps.map((tar) => this.dropImage(tar)));
    await this.aci.sandbox.exec(`rm -rf ${bashQuote(this.dir)}`, { timeoutMs: 60_000 }).catch(() => undefined);
  }
}

/**
 * Keeps the snapshots of finished sessions, each in its finished session's container, so that a
 * fork started after its source ended still restores instead of replaying. At most `maxSessions`
 * sessions (containers) and `budgetBytes` of snapshots in all; beyond that the least recently used
 * (kept, or restored from by a fork) go, container and all, the newest last. `dispose` removes them all.
 */
export class SnapshotKeeper {
  private readonly kept: { snapshots: SessionSnapshots; release: () => Promise<void> }[] = [];
  private disposed = false;

  constructor(
    readonly maxSessions = 2,
    readonly budgetBytes = DEFAULT_SNAPSHOT_BUDGET_BYTES,
  ) {}

  /** The sandboxes (containers) kept for their snapshots, least recently used first. */
  get sandboxIds(): string[] {
    return [...this.kept].sort((a, b) => a.snapshots.usedAt - b.snapshots.usedAt).map((k) => k.snapshots.aci.sandbox.id);
  }

  /**
   * Takes over a finished session's snapshots and the sandbox holding them (`release` removes the
   * sandbox). False when there is nothing worth keeping (no snapshot, taking them failed, over the
   * budget alone, or the keeper is disposed): the caller then disposes both itself.
   */
  async keep(snapshots: SessionSnapshots, release: () => Promise<void>): Promise<boolean> {
    if (this.disposed || snapshots.failure !== undefined || snapshots.steps.length === 0 || snapshots.bytes > this.budgetBytes) return false;
    snapshots.usedAt = ++useClock;
    this.kept.push({ snapshots, release });
    const total = () => this.kept.reduce((sum, k) => sum + k.snapshots.bytes, 0);
    while (this.kept.length > this.maxSessions || total() > this.budgetBytes) {
      const oldest = this.kept.filter((k) => k.snapshots !== snapshots).sort((a, b) => a.snapshots.usedAt - b.snapshots.usedAt)[0];
      if (!oldest) break;
      await this.drop(oldest);
    }
    return true;
  }

  /** Removes every kept session's snapshots and container; later sessions are kept again. */
  async clear(): Promise<void> {
    await Promise.all([...this.kept].map((k) => this.drop(k)));
  }

  /** Removes every kept session's snapshots and container; later `keep` calls keep nothing. */
  async dispose(): Promise<void> {
    this.disposed = true;
    await this.clear();
  }

  private async drop(kept: { snapshots: SessionSnapshots; release: () => Promise<void> }): Promise<void> {
    this.kept.splice(this.kept.indexOf(kept), 1);
    await kept.snapshots.dispose();
    await kept.release().catch(() => undefined);
  }
}

/** The running and kept sessions' snapshots in this process. */
class SnapshotRegistry {
  private readonly sessions = new Map<SessionSnapshots, () => readonly Step[]>();

  /** Registers a running session; `steps` gives its steps so far. */
  add(snapshots: SessionSnapshots, steps: () => readonly Step[]): void {
    this.sessions.set(snapshots, steps);
  }

  remove(snapshots: SessionSnapshots): void {
    this.sessions.delete(snapshots);
  }

  get size(): number {
    return this.sessions.size;
  }

  /** The snapshot closest to `at` (latest first) among running sessions of `setup` that took `recording`'s actions. */
  find(setup: string, recording: readonly Step[], at: number, tools: Pick<ToolSet, 'parseCommand'>): FoundSnapshot | undefined {
    let best: FoundSnapshot | undefined;
    for (const [session, steps] of this.sessions) {
      if (session.setup !== setup) continue;
      const found = session.find(recording, at, tools, steps());
      if (found && (!best || found.at > best.at)) best = found;
    }
    return best;
  }
}

export const forkSnapshots = new SnapshotRegistry();
