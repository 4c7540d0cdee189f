//go:build race && unix

package testmain

const raceEnabled = true
