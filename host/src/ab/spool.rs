//! What a run lists per recording (each prompt's row of the per-prompt outputs, the recordings
//! that could not be read) goes through an unnamed temporary file instead of memory, so that
//! what `ptc ab` holds does not grow with the corpus. The file is made on the first line and
//! removed by the system when the spool is dropped, whatever happens.

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Seek, Write};

use crate::Error;

/// Records of text kept in order in a temporary file: read back as the bytes pushed, or as
/// lines when each record is a line with its line break.
#[derive(Default)]
pub struct Spool {
    file: Option<BufWriter<File>>,
    lines: usize,
}

fn spool_error(source: std::io::Error) -> Error {
    Error::WriteFile {
        path: std::env::temp_dir(),
        source,
    }
}

impl Spool {
    /// Appends `record`.
    pub fn push(&mut self, record: &str) -> Result<(), Error> {
        let file = match &mut self.file {
            Some(file) => file,
            None => self
                .file
                .insert(BufWriter::new(tempfile::tempfile().map_err(spool_error)?)),
        };
        file.write_all(record.as_bytes()).map_err(spool_error)?;
        self.lines += 1;
        Ok(())
    }

    /// The number of records pushed.
    pub fn len(&self) -> usize {
        self.lines
    }

    pub fn is_empty(&self) -> bool {
        self.lines == 0
    }

    /// The text pushed, line by line from the first, without the line breaks; the spool can be
    /// read again.
    pub fn lines(&mut self) -> Result<impl Iterator<Item = Result<String, Error>>, Error> {
        Ok(self
            .reader()?
            .into_iter()
            .flat_map(BufRead::lines)
            .map(|line| line.map_err(spool_error)))
    }

    /// Writes the text pushed, as pushed, to `out`.
    pub fn copy_to(&mut self, out: &mut dyn Write) -> Result<(), Error> {
        if let Some(mut reader) = self.reader()? {
            std::io::copy(&mut reader, out).map_err(Error::Output)?;
        }
        Ok(())
    }

    fn reader(&mut self) -> Result<Option<BufReader<File>>, Error> {
        let reader = match &mut self.file {
            None => None,
            Some(file) => {
                file.flush().map_err(spool_error)?;
                let mut read = file.get_ref().try_clone().map_err(spool_error)?;
                read.rewind().map_err(spool_error)?;
                Some(BufReader::with_capacity(1 << 16, read))
            }
        };
        // The clone shares the file's offset: writing after reading would write at the
        // reader's place. A spool is read once every record is pushed.
        Ok(reader)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_come_back_in_order_as_often_as_asked() {
        let mut spool = Spool::default();
        assert_eq!(spool.lines().unwrap().count(), 0, "no file before a line");
        for line in ["one\n", "\n", "three \u{e9}\n"] {
            spool.push(line).unwrap();
        }
        assert_eq!(spool.len(), 3);
        for _ in 0..2 {
            let back: Vec<String> = spool.lines().unwrap().map(Result::unwrap).collect();
            assert_eq!(back, ["one", "", "three \u{e9}"]);
        }
        let mut out = Vec::new();
        spool.copy_to(&mut out).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "one\n\nthree \u{e9}\n");
    }
}
