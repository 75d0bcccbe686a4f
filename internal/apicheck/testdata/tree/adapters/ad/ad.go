// Package ad is an adapter module.
package ad
