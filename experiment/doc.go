// Package experiment runs the protocol of online-learning experiments.
//
// For every task (binary and multi-class classification, regression) it holds
// one pass of a learner over an order of a dataset with progressive metrics
// (pass.go), statistics over runs (stats.go), parameter grids and selection on
// held-out permutations (grid.go, plan.go), jobs and their scheduling over
// workers (jobs.go, runner.go), the store of finished jobs with resume, shards
// and merge (store.go), a study's phases from the job plans to the report
// (study.go), the kernel-width estimator (width.go), and the figures and the
// pieces of reports (figures.go, report.go). What belongs to one publication
// (its datasets, published tables and report) lives in a subpackage:
// experiment/paper (ICML 2012), experiment/lsokl (JMLR 2016).
//
// The package computes and writes files; it prints nothing: warnings and
// progress go to callbacks of the caller.
package experiment
