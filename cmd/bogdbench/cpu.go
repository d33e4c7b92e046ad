package main

import (
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/klauspost/cpuid/v2"

	"github.com/bogd-project/bogd/simd"
)

// cpuCommand prints what the kernels' dispatch sees.
func cpuCommand(args []string, stdout, stderr io.Writer) error {
	if err := parseFlags(newFlags("cpu", stderr), args); err != nil {
		return err
	}
	var features []string
	for _, f := range []cpuid.FeatureID{cpuid.AVX, cpuid.AVX2, cpuid.FMA3, cpuid.AVX512F, cpuid.AVX512DQ, cpuid.AVX512BW, cpuid.AVX512VL} {
		if cpuid.CPU.Supports(f) {
			features = append(features, f.String())
		}
	}
	var avail []string
	for _, impl := range simd.Available() {
		avail = append(avail, impl.String())
	}
	fmt.Fprintf(stdout, "cpu:        %s (%s, %d logical cores)\n", cpuid.CPU.BrandName, runtime.GOARCH, runtime.NumCPU())
	fmt.Fprintf(stdout, "features:   %s\n", strings.Join(features, " "))
	fmt.Fprintf(stdout, "available:  %s\n", strings.Join(avail, " "))
	fmt.Fprintf(stdout, "active:     %s\n", simd.Active())
	if err := simd.EnvError(); err != nil {
		return err
	}
	return nil
}
