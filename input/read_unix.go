//go:build unix

package input

import "syscall"

// openFlags keeps opening a FIFO from waiting for a writer.
const openFlags = syscall.O_NONBLOCK

// noFollow refuses a symbolic link as the last part of a path already
// resolved: one put there after it was checked.
const noFollow = syscall.O_NOFOLLOW

// readRegular reads the regular file at path, of 1 to limit bytes, with
// four system calls (open, fstat, read, close) where the general path makes
// six (an os.File also asks the poller to take the file, and a second
// read sees the end): restls check reads thousands of scripts. The
// file's bytes are data[room.Before:len(data)-room.After]. ok is false
// for anything else (no such file, not a regular file, an empty, too
// large or growing file, a short read, any error): the caller's general
// path then reads it, or says why it cannot; err is then the open's
// error, if that failed.
func readRegular(path string, limit int64, extra int, room Room) (data []byte, ok bool, err error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|openFlags|extra, 0)
	if err != nil {
		return nil, false, err
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG || st.Size <= 0 || st.Size > limit {
		return nil, false, nil
	}
	// One byte more than the size: a file that grew since fstat fills it
	// and goes the general way.
	buf := make([]byte, int64(room.Before)+st.Size+1+int64(room.After))
	n, err := syscall.Read(fd, buf[room.Before:int64(room.Before)+st.Size+1])
	if err != nil || int64(n) != st.Size {
		return nil, false, nil
	}
	return buf[:room.Before+n+room.After], true, nil
}
