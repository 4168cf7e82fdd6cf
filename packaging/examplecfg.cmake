#   cmake -DDROVER=<drover> -DOUT=<file> -DFOR=example|package -P examplecfg.cmake
#
#   Writes a settings file from `drover broker --print-config` (so the file
#   and the binary never disagree): every setting of the broker with its
#   default and its comment, under a header for where it goes. FOR=example:
#   share/doc/drover/examples/drover.cfg; FOR=package: the Debian package's
#   /etc/drover/drover.cfg, which drover-broker.service reads. Rewritten
#   only when it changes, so nothing that depends on it is made for nothing.
#   A build with the sanitizers: a leak report at exit is not this step's concern
set (ENV{ASAN_OPTIONS} "detect_leaks=0")
execute_process (COMMAND ${DROVER} broker --print-config
                 OUTPUT_VARIABLE settings RESULT_VARIABLE rc)
if (NOT rc EQUAL 0 OR settings STREQUAL "")
    message (FATAL_ERROR "${DROVER} broker --print-config: exit ${rc}")
endif ()
if (FOR STREQUAL "package")
    set (header
"#   /etc/drover/drover.cfg: the settings of drover-broker.service, each with
#   its default and what it does (`drover broker --print-config`). The unit
#   runs `drover broker -c /etc/drover/drover.cfg --state-dir /var/lib/drover`:
#   the flag wins over broker/state-dir below. After a change,
#   `systemctl reload drover-broker` applies what can change at run time and
#   logs what needs `systemctl restart drover-broker`.
")
else ()
    set (header
"#   drover's broker settings: every one, with its default and what it means,
#   as `drover broker --print-config` prints them. Keep the settings you
#   change and run `drover broker -c FILE`; `--set section/name=value`
#   overrides one. (A worker takes flags: `drover worker --help`.)
")
endif ()
file (WRITE ${OUT}.new "${header}${settings}")
file (COPY_FILE ${OUT}.new ${OUT} ONLY_IF_DIFFERENT)
file (REMOVE ${OUT}.new)
