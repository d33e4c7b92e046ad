module github.com/bogd-project/bogd

go 1.26.0

require (
	github.com/klauspost/cpuid/v2 v2.4.2 // indirect
	github.com/mmcloughlin/avo v0.6.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/tools v0.52.0 // indirect
)
