#   cmake -DDROVER=PATH -DOUTPUT=FILE -P print-config.cmake: write the
#   settings file the package installs as /etc/drover/drover.cfg, every
#   setting with its default and comment from `drover broker --print-config`
#   (so the file and the binary never disagree), under a header saying how
#   the unit uses it
execute_process (COMMAND ${DROVER} broker --print-config
                 OUTPUT_VARIABLE settings RESULT_VARIABLE status)
if (NOT status EQUAL 0 OR settings STREQUAL "")
    message (FATAL_ERROR "${DROVER} broker --print-config failed (${status})")
endif ()
file (WRITE ${OUTPUT}.new
"#   /etc/drover/drover.cfg: the settings of drover-broker.service, each with
#   its default and what it does (`drover broker --print-config`). The unit
#   runs `drover broker -c /etc/drover/drover.cfg --state-dir /var/lib/drover`:
#   the flag wins over broker/state-dir below. After a change,
#   `systemctl reload drover-broker` applies what can change at run time and
#   logs what needs `systemctl restart drover-broker`.
${settings}")
#   Rewritten only when it changes, so the package is not rebuilt for nothing
file (COPY_FILE ${OUTPUT}.new ${OUTPUT} ONLY_IF_DIFFERENT)
file (REMOVE ${OUTPUT}.new)
