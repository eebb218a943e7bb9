/**
 * The young generation a rollout index runs with, decided once for both front ends: the
 * extension's index worker gets it as a resource limit, the CLI's main thread as a V8 flag when
 * it starts (`extension/cli/relaunch.ts`), since a running isolate's is fixed.
 *
 * Why bound it: V8 doubles the young generation's semi-spaces each time more than their size
 * survives a scavenge since the last growth, so a long index, whose rows all survive, grows them
 * to 64 MB where 10,000 rollouts stop at 32 MB, and the larger spaces hold only garbage. Bounded,
 * a large index peaks lower for a little more CPU (`bench/rollouts/scale.ts` measures it).
 */
const INDEX_SEMI_SPACE_MB = 32;

/** The same bound as a worker's resource limit: V8's young generation is three semi-spaces. */
export const INDEX_YOUNG_GENERATION_MB = 3 * INDEX_SEMI_SPACE_MB;

/**
 * The V8 flags a process's main thread indexes with: the young generation bounded the same way,
 * and the old generation grown by half its live size after each full collection, where V8 lets
 * it grow to four times: a long cold index otherwise goes without a full collection while most of
 * its old generation becomes garbage (`bench/rollouts/scale.ts`). A worker cannot have it: V8's
 * flags are the process's, and the extension host's are VS Code's.
 */
export const INDEX_HEAP_FLAGS: readonly string[] = [`--max-semi-space-size=${INDEX_SEMI_SPACE_MB}`, '--heap-growing-percent=50'];

/**
 * The C library allocator's setting the CLI's index runs with, which only a process's start can
 * give (the extension host's is VS Code's). glibc raises its mmap threshold to the size of each
 * large block freed, up to 32 MB: after the first 1 MiB read or piece of the cache is freed, the
 * later ones come from its main heap, and stay there as fragmentation it does not give back.
 * Fixed at its starting 128 KiB, larger blocks are mapped and unmapped each time, which lowers a
 * large index's peak for no more CPU (`bench/rollouts/scale.ts`). Other C libraries ignore it.
 */
export const INDEX_MALLOC_ENV: Readonly<Record<string, string>> = { MALLOC_MMAP_THRESHOLD_: '131072' };
