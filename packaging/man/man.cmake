#   cmake -DDROVER=<drover> -DOUT=<dir> -DVERSION=<release> -DTEXT=<help2man-text.sh> -P man.cmake
#
#   Writes the man pages into OUT with help2man, gzipped: drover.1.gz from
#   `drover --help` and drover-COMMAND.1.gz from `drover COMMAND --help` for each command that
#   `drover --help` lists, named with its summary there. The text goes
#   through help2man-text.sh, which shapes the layout for help2man and keeps
#   the words, so a page and --help never disagree. help2man runs a
#   program by the page's name: OUT/bin holds one small script per page.
#   A build with the sanitizers: a leak report at exit is not this step's concern
set (ENV{ASAN_OPTIONS} "detect_leaks=0")
find_program (HELP2MAN help2man)
if (NOT HELP2MAN)
    message (FATAL_ERROR "help2man not found: apt-get install help2man")
endif ()
execute_process (COMMAND ${DROVER} --help OUTPUT_VARIABLE help RESULT_VARIABLE rc)
if (NOT rc EQUAL 0)
    message (FATAL_ERROR "${DROVER} --help: exit ${rc}")
endif ()
#   The commands: the lines of "commands:" up to "help"
string (REGEX MATCH "\ncommands:\n(.*)\n  help " listing "${help}")
string (REPLACE "\n" ";" lines "${CMAKE_MATCH_1}")
set (commands "")
file (REMOVE_RECURSE ${OUT})
file (MAKE_DIRECTORY ${OUT}/bin)
foreach (line ${lines})
    if (line MATCHES "^  ([a-z]+) +(.+)$")
        set (command ${CMAKE_MATCH_1})
        set (summary_${command} "${CMAKE_MATCH_2}")
        list (APPEND commands ${command})
    endif ()
endforeach ()
if (NOT commands)
    message (FATAL_ERROR "${DROVER} --help lists no commands")
endif ()

#   Write OUT/NAME.1 by help2man from OUT/bin/NAME, which runs drover ARGS
function (s_page name summary)
    set (script ${OUT}/bin/${name})
    file (WRITE ${script} "#!/bin/sh\nexec sh '${TEXT}' '${DROVER}' ${ARGN} \"$@\"\n")
    file (CHMOD ${script} PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ
          GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
    execute_process (
        COMMAND ${HELP2MAN} --no-info --no-discard-stderr --section=1
                --name=${summary} --version-string=${VERSION}
                --source=drover --manual=drover --output=${OUT}/${name}.1 ${script}
        RESULT_VARIABLE rc)
    if (NOT rc EQUAL 0)
        message (FATAL_ERROR "help2man ${name}: exit ${rc}")
    endif ()
    #   Installed compressed, as Debian's policy wants (man reads either)
    execute_process (COMMAND gzip -9nf ${OUT}/${name}.1 RESULT_VARIABLE rc)
    if (NOT rc EQUAL 0)
        message (FATAL_ERROR "gzip ${name}.1: exit ${rc}")
    endif ()
endfunction ()

s_page (drover "a cluster task broker on ZeroMQ: its broker, workers and client commands")
foreach (command ${commands})
    #   "run the broker (drover broker --help)": the summary without the pointer
    string (REGEX REPLACE " \\(drover [a-z]+ --help\\)$" "" summary "${summary_${command}}")
    s_page (drover-${command} "${summary}" ${command})
endforeach ()
