/*  =========================================================================
    drover_why - TASK EXPLANATION items in words: the sentence for each
    item, and the short form the REASON column of `drover tasks` shows

    The broker sends the structured form (codes and numbers, PROTOCOL.md
    §7.25); these make the words, the same for every caller: the broker
    for a TASK TABLE row's reason, the CLI for `drover explain`.
    =========================================================================
*/

#ifndef DROVER_WHY_H_INCLUDED
#define DROVER_WHY_H_INCLUDED

#include "drover_msg.h"

#ifdef __cplusplus
extern "C" {
#endif

//  Return the verdict among items (the item whose code is 40 or more), or NULL
const drover_why_t *
    drover_why_verdict (const drover_why_t *whys, size_t count);

//  Return true if a verdict says no connected worker could ever run the task
bool
    drover_why_never (const drover_why_t *verdict);

//  Format bytes for people: 512B, 64K, 1.5G, 30G (4.0G: tenths under 10)
void
    drover_why_bytes (uint64_t bytes, char *text, size_t size);

//  Say one item in words, without the worker names: "3 ahead: 2 of higher
//  priority, 1 earlier of the same", "lacks label zone=c", "fits on big
//  when 2 more procs free", "no worker could ever run it: no worker has
//  label zone=c". A probation end is said in local time.
void
    drover_why_sentence (const drover_why_t *why, char *text, size_t size);

//  Say a whole explanation in a few words, for a REASON column: "no label
//  zone=c", "procs 64>16", "mem 30G>24G", "held", "probation", "behind 12",
//  "busy", "next"
void
    drover_why_short (const drover_why_t *whys, size_t count, char *text, size_t size);

#ifdef __cplusplus
}
#endif

#endif
