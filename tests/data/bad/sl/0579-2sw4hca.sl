# path SLs of 2sw4hca: src_node_guid dlid sl
0x0000000000100000 1 1
0x0000000000100000  x
