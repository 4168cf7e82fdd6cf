#   cmake -DDROVER=<drover> -DOUT=<file> -P examplecfg.cmake
#
#   Writes the example settings file (share/doc/drover/examples/drover.cfg):
#   every setting of the broker with its default and its comment, as
#   `drover broker --print-config` prints them, under a short header
#   A build with the sanitizers: a leak report at exit is not this step's concern
set (ENV{ASAN_OPTIONS} "detect_leaks=0")
execute_process (COMMAND ${DROVER} broker --print-config
                 OUTPUT_VARIABLE settings RESULT_VARIABLE rc)
if (NOT rc EQUAL 0 OR settings STREQUAL "")
    message (FATAL_ERROR "${DROVER} broker --print-config: exit ${rc}")
endif ()
file (WRITE ${OUT}
"#   drover's broker settings: every one, with its default and what it means,
#   as `drover broker --print-config` prints them. Keep the settings you
#   change and run `drover broker -c FILE`; `--set section/name=value`
#   overrides one. (A worker takes flags: `drover worker --help`.)
${settings}")
