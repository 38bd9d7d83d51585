# CPACK_PROJECT_CONFIG_FILE (read by cpack once per generator): the relocatable tarball
# (`cpack -G TGZ`) holds the tree itself (bin/, lib.../, share/) under its top directory, not /usr.
if(CPACK_GENERATOR MATCHES "^(TGZ|TXZ|ZIP)$")
  set(CPACK_PACKAGING_INSTALL_PREFIX "")
endif()
