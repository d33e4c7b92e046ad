// Package experiment runs the protocol of online-learning experiments: one
// pass of a learner over an order of a dataset with progressive metrics
// (pass.go), statistics over runs (stats.go), parameter grids and selection
// on held-out permutations (grid.go, plan.go), jobs and their scheduling
// over workers (jobs.go, runner.go), the store of finished jobs with
// resume, shards and merge (store.go), and the figures of the results
// (figures.go). What belongs to one publication (its datasets, published
// tables and report) lives in a subpackage such as experiment/paper.
//
// The package computes and writes files; it prints nothing: warnings and
// progress go to callbacks of the caller.
package experiment
