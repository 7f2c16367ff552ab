"""Distribution feeders (IEEE 123-node, MATPOWER 141-bus) and AC optimal power flow via pandapower."""
