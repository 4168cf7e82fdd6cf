file(REMOVE_RECURSE
  "CMakeFiles/test_zmq_forwarder.dir/tests/test_zmq_forwarder.c.o"
  "CMakeFiles/test_zmq_forwarder.dir/tests/test_zmq_forwarder.c.o.d"
  "CMakeFiles/test_zmq_forwarder.dir/tests/testutil.c.o"
  "CMakeFiles/test_zmq_forwarder.dir/tests/testutil.c.o.d"
  "test_zmq_forwarder"
  "test_zmq_forwarder.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_zmq_forwarder.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
