file(REMOVE_RECURSE
  "CMakeFiles/zmq_forwarder.dir/tools/peers/zmq_forwarder.c.o"
  "CMakeFiles/zmq_forwarder.dir/tools/peers/zmq_forwarder.c.o.d"
  "zmq_forwarder"
  "zmq_forwarder.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/zmq_forwarder.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
