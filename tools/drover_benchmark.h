/*  =========================================================================
    drover_benchmark - `drover bench`: throughput, latency and memory of
    a broker started for the purpose on loopback

    The header only declares the subcommand's entry point.
    =========================================================================
*/

#ifndef DROVER_BENCHMARK_H_INCLUDED
#define DROVER_BENCHMARK_H_INCLUDED

#ifdef __cplusplus
extern "C" {
#endif

//  Run the benchmark: argv [0] is "bench". Returns an exit status
//  (0 ok, 1 a phase failed, 2 bad flags).
int
    drover_benchmark_main (int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif
