#   The Debian package (`cpack -G DEB` in the build directory): what the
#   installed tree becomes, its dependencies and its maintainer scripts
