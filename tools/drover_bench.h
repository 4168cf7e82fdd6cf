/*  =========================================================================
    drover_bench (tool) - `drover bench`: throughput, latency and memory of
    a broker started for the purpose on loopback

    Not to be confused with src/drover_bench.h (the probation set): this
    header only declares the subcommand's entry point, hence its own guard.
    =========================================================================
*/

#ifndef DROVER_BENCH_TOOL_H_INCLUDED
#define DROVER_BENCH_TOOL_H_INCLUDED

#ifdef __cplusplus
extern "C" {
#endif

//  Run the benchmark: argv [0] is "bench". Returns an exit status
//  (0 ok, 1 a phase failed, 2 bad flags).
int
    drover_bench_main (int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif
