//go:build purego

package main

func init() { buildTags = []string{"-tags", "purego"} }
