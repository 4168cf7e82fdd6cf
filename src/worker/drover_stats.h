/*  =========================================================================
    drover_stats - a worker's resource stats, read from the machine

    Fills a drover_stats_t (declared with the codec, as WORKER HEARTBEAT
    carries it): load averages from /proc/loadavg, memory from
    /proc/meminfo (used = MemTotal - MemAvailable), and the disk of the
    work directory's filesystem from statvfs. The parsers take text, so
    they are tested on fixed samples; the readers use the real files.
    =========================================================================
*/

#ifndef DROVER_STATS_H_INCLUDED
#define DROVER_STATS_H_INCLUDED

#include "drover_msg.h"

#ifdef __cplusplus
extern "C" {
#endif

//  Fill stats with load, memory and the disk holding workdir (NULL: the
//  current directory). stats->running is left as it was. Returns 0, or -1
//  if any part could not be read (those fields are then zero).
int
    drover_stats_read (drover_stats_t *stats, const char *workdir);

//  Parse the text of /proc/loadavg into load [3]. Returns 0 or -1.
int
    drover_stats_parse_loadavg (const char *text, double load [3]);

//  Parse the text of /proc/meminfo into MemTotal and MemAvailable, bytes.
//  Returns 0, or -1 if either is missing.
int
    drover_stats_parse_meminfo (const char *text, uint64_t *total_p, uint64_t *available_p);

//  Return the machine's MemTotal in bytes, 0 if unknown
uint64_t
    drover_stats_mem_total (void);

//  Return the number of online CPUs, at least 1
uint32_t
    drover_stats_cpus (void);

#ifdef __cplusplus
}
#endif

#endif
