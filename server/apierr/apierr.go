// Package apierr is the one error type every harkd service returns for
// conditions the client must see: an HTTP status plus the code and
// description of the error body (DECISIONS §4). Services stay free of HTTP
// plumbing; the HTTP layer turns an *Error into the response, and anything
// else into a 500 Internal that leaks nothing.
package apierr

import (
	"errors"
	"fmt"
	"net/http"
	"syscall"
)

// Codes of DECISIONS §4.
const (
	BadRequest               = "BadRequest"
	InvalidArgument          = "InvalidArgument"
	MissingSignature         = "MissingSignature"
	UnknownApiKey            = "UnknownApiKey"
	ExpiredSignature         = "ExpiredSignature"
	InvalidSignature         = "InvalidSignature"
	ReplayedNonce            = "ReplayedNonce"
	InvalidCredentials       = "InvalidCredentials"
	TokenExpired             = "TokenExpired"
	Forbidden                = "Forbidden"
	EntityNotFound           = "EntityNotFound"
	EntityAlreadyExists      = "EntityAlreadyExists"
	Locked                   = "Locked"
	TooManyRequests          = "TooManyRequests"
	TrainingTimeOut          = "TrainingTimeOut"
	QuotaExceeded            = "QuotaExceeded"
	InvalidConfirmationToken = "InvalidConfirmationToken"
	PayloadTooLarge          = "PayloadTooLarge"
	Unavailable              = "Unavailable"
	InsufficientStorage      = "InsufficientStorage"
	Internal                 = "Internal"
)

// Error is a client-visible failure.
type Error struct {
	Status      int    `json:"-"`
	Code        string `json:"code"`
	Description string `json:"description"`
	// RetryAfter, when positive, is sent as the Retry-After header (seconds).
	RetryAfter int `json:"-"`
}

func (e *Error) Error() string {
	return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Description)
}

// New builds an Error with a formatted description.
func New(status int, code, format string, args ...any) *Error {
	return &Error{Status: status, Code: code, Description: fmt.Sprintf(format, args...)}
}

// Shorthands for the statuses every service uses.

func BadRequestf(format string, args ...any) *Error {
	return New(http.StatusBadRequest, BadRequest, format, args...)
}

func InvalidArgumentf(format string, args ...any) *Error {
	return New(http.StatusBadRequest, InvalidArgument, format, args...)
}

func NotFoundf(format string, args ...any) *Error {
	return New(http.StatusNotFound, EntityNotFound, format, args...)
}

func Conflictf(format string, args ...any) *Error {
	return New(http.StatusConflict, EntityAlreadyExists, format, args...)
}

func Forbiddenf(format string, args ...any) *Error {
	return New(http.StatusForbidden, Forbidden, format, args...)
}

func Lockedf(format string, args ...any) *Error {
	return New(http.StatusLocked, Locked, format, args...)
}

func Unavailablef(format string, args ...any) *Error {
	return New(http.StatusServiceUnavailable, Unavailable, format, args...)
}

func TooLargef(format string, args ...any) *Error {
	return New(http.StatusBadRequest, PayloadTooLarge, format, args...)
}

// As returns the *Error inside err, if any.
func As(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	return nil, false
}

// DiskFullDescription is what a client is told when a write found no room.
const DiskFullDescription = "the server's disk is full; reads still work, writes fail until space is freed"

// DiskFull returns a 507 InsufficientStorage when err says the disk (or
// the quota) has no room left: the file system's ENOSPC or EDQUOT, or
// SQLite's "database or disk is full". It returns nil for any other error.
// The cause is named because a bare 500 sent operators hunting for a bug.
func DiskFull(err error) *Error {
	if !IsDiskFull(err) {
		return nil
	}
	return &Error{Status: http.StatusInsufficientStorage, Code: InsufficientStorage, Description: DiskFullDescription}
}

// IsDiskFull reports whether err says the disk or the quota is full, or is
// already the 507 that says so.
func IsDiskFull(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		return true
	}
	if e, ok := As(err); ok {
		return e.Code == InsufficientStorage
	}
	// SQLite reports a full disk as its own result code 13 (SQLITE_FULL);
	// the driver's error exposes it through Code.
	var coded interface{ Code() int }
	return errors.As(err, &coded) && coded.Code()&0xff == 13
}

// OrDiskFull returns DiskFull(err) when the disk is full, else err.
func OrDiskFull(err error) error {
	if e := DiskFull(err); e != nil {
		return e
	}
	return err
}
