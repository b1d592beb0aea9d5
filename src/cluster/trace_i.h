/*
 * trace_i.h -- a line on stderr for each step of the information moves,
 * compiled in only with -DMMNC_TRACE_SWEEPS (bench/peers/race_sim.py reads
 * them); otherwise every macro is empty.
 */
#ifndef MMNC_TRACE_I_H
#define MMNC_TRACE_I_H

#ifdef MMNC_TRACE_SWEEPS
#include <stdio.h>
/* Every sweep: the start, whether it is a polish (-1: a start's own
 * phases; 0, 1: a polish of I(X;Z), of J), the phase (0: I(X;Z) alone, 1:
 * with the prior), the sweep, the rows moved and the phase's objective
 * after it. */
#define TRACE_SWEEP(restart, polish, phase, it, moved, obj)                                                  \
    fprintf(stderr, "sweep start %d polish %d phase %d it %d moved %lld objective %.9f\n", (restart), (polish), \
            (phase), (it), (long long)(moved), (obj))
/* The end of a start or polish: its decisions, the exact costs they made
 * besides the row's own cluster's, and the costs that bounds ruled out
 * (decisions of threads' blocks whose costs were made ahead not counted). */
#define TRACE_COSTS(restart, polish, decided, exact, pruned)                                                    \
    fprintf(stderr, "costs start %d polish %d decisions %lld exact %lld pruned %lld\n", (restart), (polish),     \
            (long long)(decided), (long long)(exact), (long long)(pruned))
/* The guard's verdict: the nuclear norms of the prior-free and the prior's
 * partitions of a start, the prior's leave-one-row-out predictive
 * information (1 where not made) and the prior-free's (0 where not made). */
#define TRACE_GUARD(restart, nuc0, nuc1, g0, g1, kept)                                                          \
    fprintf(stderr, "guard start %d prior_free %.9f prior %.9f loo_prior %.6f loo_prior_free %.6f kept %d\n", (restart), \
            (nuc0), (nuc1), (g1), (g0), (kept))
/* Each merge-split trial: the pair merged, its gain, the cluster split, the
 * objective before and after, the sweeps. */
#define TRACE_MERGE_SPLIT(t, i, j, gain, s, before, after, sweeps)                                            \
    fprintf(stderr, "merge-split %d merge %lld %lld gain %.6g split %lld objective %.9f -> %.9f sweeps %d\n", (t), \
            (long long)(i), (long long)(j), (gain), (long long)(s), (before), (after), (sweeps))
#else
#define TRACE_SWEEP(restart, polish, phase, it, moved, obj) ((void)0)
#define TRACE_COSTS(restart, polish, decided, exact, pruned) ((void)0)
#define TRACE_GUARD(restart, nuc0, nuc1, g0, g1, kept) ((void)0)
#define TRACE_MERGE_SPLIT(t, i, j, gain, s, before, after, sweeps) ((void)0)
#endif

#endif /* MMNC_TRACE_I_H */
