"""Helpers shared by the tests: repository paths (repo), real-data file writers (formats), in-process DAG plans (workflow_dag)."""
