/**
 * The young generation a rollout index runs with, decided once for both front ends: the
 * extension's index worker gets it as a resource limit, the CLI's main thread as a V8 flag when
 * it starts (`extension/cli/relaunch.ts`), since a running isolate's is fixed.
 *
 * Why bound it: V8 doubles the young generation's semi-spaces each time more than their size
 * survives a scavenge since the last growth, so a long index, whose rows all survive, grows them
 * to 64 MB where 10,000 rollouts stop at 32 MB, and the larger spaces hold only garbage. Bounded
 * at 32 MB, an index of 100,000 rollouts in one thread peaked at 386-391 MB against 485-486 MB
 * unbounded, and 10,000 at 196-201 MB against 194-197 MB (two runs each), for 10-15% more CPU.
 */
const INDEX_SEMI_SPACE_MB = 32;

/** The same bound as a worker's resource limit: V8's young generation is three semi-spaces. */
export const INDEX_YOUNG_GENERATION_MB = 3 * INDEX_SEMI_SPACE_MB;

/**
 * The V8 flags a process's main thread indexes with: the young generation bounded the same way,
 * and the old generation grown by half its live size after each full collection, where V8 lets
 * it grow to four times: a cold index of 100,000 rollouts went 20 s without one, from 45 MB live
 * to 179 MB, three fifths of it garbage. With it, 327-337 MB against 362-367 MB at 100,000 and
 * 175-179 MB against 182-183 MB at 10,000 (two runs each, alternated), for 4-10% more CPU. A
 * worker cannot have it: V8's flags are the process's, and the extension host's are VS Code's.
 */
export const INDEX_HEAP_FLAGS: readonly string[] = [`--max-semi-space-size=${INDEX_SEMI_SPACE_MB}`, '--heap-growing-percent=50'];

/**
 * The C library allocator's setting the CLI's index runs with, which only a process's start can
 * give (the extension host's is VS Code's). glibc raises its mmap threshold to the size of each
 * large block freed, up to 32 MB: after the first 1 MiB read or piece of the cache is freed, the
 * later ones come from its main heap, and stay there as fragmentation it does not give back.
 * Fixed at its starting 128 KiB, larger blocks are mapped and unmapped each time: an index of
 * 100,000 rollouts in one thread peaked at 351-355 MB against 404-422 MB, 10,000 at 195-197 MB
 * against 188-195 MB (two runs each, alternated), for no more CPU. Other C libraries ignore it.
 */
export const INDEX_MALLOC_ENV: Readonly<Record<string, string>> = { MALLOC_MMAP_THRESHOLD_: '131072' };
