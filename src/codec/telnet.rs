//! The line codec between a TCP socket and a session (SPEC section 1).
//!
//! Players arrive with `telnet`, `nc` or a script, so the input is whatever a telnet
//! client or a plain byte stream sends. [`TelnetCodec`] turns it into [`Input`] items:
//!
//! - telnet commands (`IAC x`, `IAC WILL/WONT/DO/DONT opt`, `IAC SB ... IAC SE`) are
//!   removed before lines are split, even when a sequence is split across reads at any
//!   byte; `IAC IAC` is a literal 0xFF data byte;
//! - a client's `DO x` is refused with `WONT x` and its `WILL x` with `DONT x`, at most
//!   once per option and connection, so a confused client cannot start a negotiation
//!   loop; nothing is ever sent unprompted;
//! - lines end at `\r\n`, `\r\0`, `\n` or a bare `\r`; a line is handed over as soon as
//!   its `\r` arrives and the `\n`/`\0` that may follow (even in a later read) is
//!   swallowed;
//! - a line longer than [`MAX_LINE`] bytes is dropped whole and reported once as
//!   [`Input::LineTooLong`]; the codec never buffers more than [`MAX_LINE`] bytes, and
//!   it consumes everything it is given, so memory stays bounded whatever the client
//!   sends.
//!
//! The encoder writes [`Output::Text`] with every `\n` turned into `\r\n` (telnet NVT)
//! and [`Output::Raw`] as it is.
//!
//! The session uses the plain methods: [`TelnetCodec::decode_slice`] on bytes it read
//! into a buffer on its stack, [`TelnetCodec::finish`] at the end of the input, and
//! [`Output::encode_into`] into a fresh `Vec`. It keeps no read or write buffer of its
//! own: with thousands of mostly idle sessions such buffers are cold whenever a command
//! comes, so every command would pay cache and TLB misses on them, while the stack and
//! a fresh allocation from malloc's thread cache are hot. The [`Decoder`] and
//! [`Encoder`] impls are the same code for `BytesMut` (tests use them).
//!
//! Without telnet ([`TelnetCodec::without_telnet`], an SSH channel: SPEC section 11)
//! the same codec splits lines or hands keys over, but `0xFF` is a data byte like any
//! other: nothing is negotiated and nothing is ever answered.
//!
//! One codec lives in every session, among the fields every command touches, so it
//! is 24 bytes: a few flags, and two boxes made only when needed: the line so far when
//! a line arrives in pieces (a whole line in one read goes straight from the caller's
//! bytes), released with its line, and the options refused, once a telnet client
//! negotiates. It holds everything that must survive between reads, so the caller's
//! bytes can be dropped once they are decoded.

use bytes::{Buf, BufMut, Bytes, BytesMut};
use tokio_util::codec::{Decoder, Encoder};

/// The longest input line accepted, in bytes, without its line ending (SPEC section 1).
pub const MAX_LINE: usize = 1024;

/// What the session answers to [`Input::LineTooLong`] (no line ending: the session
/// adds it with the rest of its reply).
pub const LINE_TOO_LONG: &str = "Line too long (limit 1024 bytes).";

/// Interpret As Command: starts every telnet command.
const IAC: u8 = 255;
/// Refuses to perform an option (our answer to `DO`).
const WONT: u8 = 252;
/// Asks the other side to stop an option (our answer to `WILL`).
const DONT: u8 = 254;
/// The client offers to perform an option.
const WILL: u8 = 251;
/// The client asks us to perform an option.
const DO: u8 = 253;
/// Starts a subnegotiation.
const SB: u8 = 250;
/// Ends a subnegotiation.
const SE: u8 = 240;
/// The echo option (RFC 857): whether the server echoes what the client types.
pub const ECHO_OPTION: u8 = 1;
/// Suppress go-ahead (RFC 858): with `WILL ECHO`, character at a time.
pub const SGA_OPTION: u8 = 3;
/// The terminal type (RFC 1091).
pub const TTYPE_OPTION: u8 = 24;
/// The window size (NAWS, RFC 1073).
pub const NAWS_OPTION: u8 = 31;
/// Interrupt process (Ctrl-C in a telnet client).
const IP: u8 = 244;
/// Abort output.
const AO: u8 = 245;
/// Are you there?
const AYT: u8 = 246;
/// Erase character.
const EC: u8 = 247;
/// Erase line.
const EL: u8 = 248;
/// `IS` and `SEND` inside a terminal-type subnegotiation.
const TTYPE_IS: u8 = 0;
const TTYPE_SEND: u8 = 1;
/// The most subnegotiation bytes kept (a window size takes 5, a terminal type a few
/// dozen); the rest of a longer one is dropped.
const MAX_SUB: usize = 64;
/// Carriage return.
const CR: u8 = b'\r';
/// Line feed.
const LF: u8 = b'\n';
/// NUL: after CR it completes a line ending, elsewhere it is dropped.
const NUL: u8 = 0;

/// One thing the decoder found in the input.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Input {
    /// One input line: terminator and telnet commands removed, invalid UTF-8 replaced
    /// by U+FFFD (a client's bytes never make the server fail).
    Line(String),
    /// A line over [`MAX_LINE`] bytes was discarded whole, up to its terminator; the
    /// session answers with [`LINE_TOO_LONG`] and goes on.
    LineTooLong,
    /// Bytes the session must send back as they are: our refusals of the client's
    /// `DO`/`WILL` requests.
    Negotiation(Bytes),
    /// In character mode ([`TelnetCodec::set_character_mode`]): data bytes as they
    /// came, line endings included; the session's line editor reads keys from them.
    Keys(Bytes),
    /// A telnet command or answer the session acts on.
    Signal(Signal),
}

/// What a telnet client told the server besides data.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Signal {
    /// `IAC IP`: Ctrl-C. In line mode the line being typed is already dropped.
    Interrupt,
    /// `IAC AO`: abort output.
    AbortOutput,
    /// `IAC AYT`: are you there?
    AreYouThere,
    /// `IAC EC`: erase a character (in line mode, done here on the line so far).
    EraseChar,
    /// `IAC EL`: erase the line (in line mode, done here).
    EraseLine,
    /// The client agreed to an option the server offered or asked for (`DO` after our
    /// `WILL`, `WILL` after our `DO`).
    Agreed(u8),
    /// The client refused one (`DONT` after our `WILL`, `WONT` after our `DO`).
    Declined(u8),
    /// `SB NAWS`: the window's columns and rows.
    WindowSize {
        /// Columns.
        width: u16,
        /// Rows.
        height: u16,
    },
    /// `SB TTYPE IS ...`: the terminal's type, printable ASCII only.
    TerminalType(String),
}

/// One thing to write to the client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output<'a> {
    /// Text with `\n` line endings; written with `\r\n`.
    Text(&'a str),
    /// Bytes written as they are (telnet negotiation answers).
    Raw(&'a [u8]),
}

impl Output<'_> {
    /// How many bytes [`Output::encode_into`] writes, so that the caller can reserve
    /// them in one go (a `Vec` or a `BytesMut` alike).
    pub fn encoded_len(&self) -> usize {
        match self {
            Output::Text(text) => text.len() + text.bytes().filter(|&b| b == LF).count(),
            Output::Raw(bytes) => bytes.len(),
        }
    }

    /// Appends the bytes to send: text with every `\n` as `\r\n`, raw bytes as they
    /// are. Reserving [`Output::encoded_len`] first is the caller's job; `BufMut` has
    /// no way to reserve.
    pub fn encode_into<B: BufMut>(&self, dst: &mut B) {
        match self {
            Output::Text(text) => {
                let mut lines = text.as_bytes().split(|&b| b == LF);
                if let Some(first) = lines.next() {
                    dst.put_slice(first);
                }
                for line in lines {
                    dst.put_slice(b"\r\n");
                    dst.put_slice(line);
                }
            }
            Output::Raw(bytes) => dst.put_slice(bytes),
        }
    }
}

/// Where the decoder is inside the telnet command syntax; only `Data` bytes reach lines.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
enum Telnet {
    /// Ordinary data.
    #[default]
    Data,
    /// After `IAC`.
    Iac,
    /// After `IAC WILL/WONT/DO/DONT`; the option byte comes next.
    Option(u8),
    /// Inside `IAC SB ...`, dropping everything.
    Sub,
    /// After an `IAC` inside a subnegotiation.
    SubIac,
}

/// A set of the 256 telnet options, to refuse each option at most once.
#[derive(Debug, Default, Clone, Copy, serde::Serialize, serde::Deserialize)]
struct OptionSet([u64; 4]);

impl OptionSet {
    fn contains(&self, option: u8) -> bool {
        let (word, bit) = (usize::from(option / 64), option % 64);
        self.0[word] & (1 << bit) != 0
    }

    /// Adds `option`; true when it was not in the set yet.
    fn insert(&mut self, option: u8) -> bool {
        let (word, bit) = (usize::from(option / 64), option % 64);
        let fresh = self.0[word] & (1 << bit) == 0;
        self.0[word] |= 1 << bit;
        fresh
    }
}

/// The telnet line codec of one connection: decodes [`Input`], encodes [`Output`].
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct TelnetCodec {
    /// The current line's data bytes so far (never more than [`MAX_LINE`]), when it
    /// came in pieces; `None` between lines. Boxed and released with its line: most
    /// lines arrive whole in one read and never need it, an idle session holds no
    /// buffer, and the codec stays small enough for the session to keep what a
    /// command touches together (see `session.rs`).
    #[allow(clippy::box_collection)] // 8 bytes in the session instead of 24
    line: Option<Box<Vec<u8>>>,
    /// Position in the telnet command syntax.
    telnet: Telnet,
    /// The last data byte was a CR that ended a line: one LF or NUL is swallowed.
    after_cr: bool,
    /// The current line passed [`MAX_LINE`]; its bytes are dropped until its end.
    too_long: bool,
    /// Data bytes go out as [`Input::Keys`], not lines (the server edits the line).
    character: bool,
    /// No telnet on this stream (an SSH channel): `IAC` is data, nothing is negotiated.
    plain: bool,
    /// The options already refused, offered and asked for, and a subnegotiation
    /// being read. Boxed and made on first use: only telnet clients negotiate, and it
    /// keeps the fields a command touches in a few bytes.
    refused: Option<Box<Refused>>,
}

/// What a connection's telnet client negotiated.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
struct Refused {
    /// Options whose `DO` we answered with `WONT`.
    doing: OptionSet,
    /// Options whose `WILL` we answered with `DONT`.
    willing: OptionSet,
    /// Options we offered (`WILL`): the client's `DO`/`DONT` answers.
    offered: OptionSet,
    /// Options we asked for (`DO`): the client's `WILL`/`WONT` answers.
    asked: OptionSet,
    /// The subnegotiation being read, at most [`MAX_SUB`] bytes of it.
    sub: Vec<u8>,
    /// A signal found right after refusals, handed out by the next call.
    pending: Option<Signal>,
}

/// What an option command from the client leads to.
enum Answer {
    Send([u8; 3]),
    Signal(Signal),
    Nothing,
}

impl TelnetCodec {
    /// A codec for a new connection: no line pending, no option refused yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// A codec for a stream that carries no telnet (an SSH channel): lines, or keys
    /// from the start when `character` (a pty), with every byte data.
    pub fn without_telnet(character: bool) -> Self {
        TelnetCodec {
            character,
            plain: true,
            ..Self::default()
        }
    }

    /// Whether this stream speaks telnet (so it may be sent telnet commands).
    pub fn is_telnet(&self) -> bool {
        !self.plain
    }

    /// Appends data bytes to the current line, or drops them once it is too long.
    fn push_data(&mut self, data: &[u8]) {
        self.after_cr = false;
        if self.too_long {
            return;
        }
        if data.is_empty() {
            return;
        }
        let line = self.line.get_or_insert_with(Box::default);
        if line.len() + data.len() > MAX_LINE {
            self.too_long = true;
            self.line = None;
        } else {
            line.extend_from_slice(data);
        }
    }

    /// Ends the current line and returns it (or [`Input::LineTooLong`]).
    fn finish_line(&mut self) -> Input {
        if std::mem::take(&mut self.too_long) {
            return Input::LineTooLong;
        }
        let line = self
            .line
            .take()
            .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
            .unwrap_or_default();
        Input::Line(line)
    }

    /// Our answer to `IAC command option`, if one is owed: each `DO` is refused once
    /// per option with `WONT`, each `WILL` with `DONT`; `WONT`/`DONT` need no answer.
    /// An answer to what we offered or asked for is a [`Signal`] instead.
    fn answer(&mut self, command: u8, option: u8) -> Answer {
        let negotiated = self.refused();
        match command {
            DO if negotiated.offered.contains(option) => Answer::Signal(Signal::Agreed(option)),
            DONT if negotiated.offered.contains(option) => Answer::Signal(Signal::Declined(option)),
            WILL if negotiated.asked.contains(option) => Answer::Signal(Signal::Agreed(option)),
            WONT if negotiated.asked.contains(option) => Answer::Signal(Signal::Declined(option)),
            DO if negotiated.doing.insert(option) => Answer::Send([IAC, WONT, option]),
            WILL if negotiated.willing.insert(option) => Answer::Send([IAC, DONT, option]),
            _ => Answer::Nothing,
        }
    }

    /// `IAC WILL ECHO` (`hide`: the server takes over echoing, and echoes nothing,
    /// so a password is not shown) or `IAC WONT ECHO` (the client echoes again), for a
    /// password prompt (SPEC section 7). The client's `DO ECHO` or `DONT ECHO` in
    /// answer is an acknowledgement and gets no answer of its own.
    pub fn echo(&mut self, hide: bool) -> [u8; 3] {
        self.offer(ECHO_OPTION, hide)
    }

    /// `IAC WILL option` (`on`) or `IAC WONT option`: the client's answers come back
    /// as [`Signal::Agreed`] / [`Signal::Declined`], never refused.
    pub fn offer(&mut self, option: u8, on: bool) -> [u8; 3] {
        self.refused().offered.insert(option);
        [IAC, if on { WILL } else { WONT }, option]
    }

    /// `IAC DO option`: the client's `WILL`/`WONT` come back as signals.
    pub fn ask(&mut self, option: u8) -> [u8; 3] {
        self.refused().asked.insert(option);
        [IAC, DO, option]
    }

    /// `IAC SB TTYPE SEND IAC SE`: the client's terminal type, after it agreed to
    /// tell it.
    pub fn ask_terminal_type() -> [u8; 6] {
        [IAC, SB, TTYPE_OPTION, TTYPE_SEND, IAC, SE]
    }

    /// Whether the client has ever negotiated (it is a telnet client).
    pub fn negotiated(&self) -> bool {
        self.refused.is_some()
    }

    /// Data bytes as [`Input::Keys`] (`on`) or split into lines (off). A line half
    /// received when character mode begins is dropped.
    pub fn set_character_mode(&mut self, on: bool) {
        self.character = on;
        self.line = None;
        self.too_long = false;
        self.after_cr = false;
    }

    /// The line mode's answer to a key command: `EC` drops the last character of the
    /// line so far, `EL` and `IP` the whole line.
    fn edit_line(&mut self, command: u8) {
        match command {
            EC => {
                if let Some(line) = self.line.as_mut() {
                    // A whole character, not the last byte of one.
                    let text = String::from_utf8_lossy(line);
                    let keep = text.char_indices().last().map_or(0, |(at, _)| at);
                    let kept = text[..keep].as_bytes().to_vec();
                    **line = kept;
                }
            }
            _ => {
                self.line = None;
                self.too_long = false;
            }
        }
    }

    /// The subnegotiation just ended, as a signal if it is one we read.
    fn end_sub(&mut self) -> Option<Signal> {
        let sub = std::mem::take(&mut self.refused().sub);
        match sub.as_slice() {
            [NAWS_OPTION, w1, w0, h1, h0] => Some(Signal::WindowSize {
                width: u16::from_be_bytes([*w1, *w0]),
                height: u16::from_be_bytes([*h1, *h0]),
            }),
            [TTYPE_OPTION, TTYPE_IS, name @ ..] => Some(Signal::TerminalType(
                name.iter()
                    .filter(|b| b.is_ascii_graphic())
                    .map(|&b| char::from(b))
                    .take(40)
                    .collect(),
            )),
            _ => None,
        }
    }

    /// A byte of a subnegotiation's data, kept up to [`MAX_SUB`].
    fn push_sub(&mut self, byte: u8) {
        let sub = &mut self.refused().sub;
        if sub.len() < MAX_SUB {
            sub.push(byte);
        }
    }

    /// The options refused so far, made on first use.
    fn refused(&mut self) -> &mut Refused {
        self.refused.get_or_insert_with(Box::default)
    }

    /// Reads `buf` from `*pos` until an item is complete or `buf` is used up, leaving
    /// `*pos` after the last byte consumed. Refusals found one after another are
    /// coalesced into one [`Input::Negotiation`].
    ///
    /// `None` means `*pos` reached the end: an unfinished line or telnet command is
    /// kept inside the codec, so nothing of `buf` has to be kept for the next read.
    /// Call again until `None` to get every item in `buf`.
    pub fn decode_slice(&mut self, buf: &[u8], pos: &mut usize) -> Option<Input> {
        if let Some(signal) = self.refused.as_mut().and_then(|r| r.pending.take()) {
            return Some(Input::Signal(signal));
        }
        let mut answers: Vec<u8> = Vec::new();
        while *pos < buf.len() {
            if !answers.is_empty() && self.telnet == Telnet::Data && buf[*pos] != IAC {
                break;
            }
            match self.telnet {
                Telnet::Data if self.character => {
                    let rest = &buf[*pos..];
                    let plain = if self.plain {
                        rest.len()
                    } else {
                        rest.iter().position(|&b| b == IAC).unwrap_or(rest.len())
                    };
                    if plain > 0 {
                        *pos += plain;
                        return Some(Input::Keys(Bytes::copy_from_slice(&rest[..plain])));
                    }
                    *pos += 1;
                    self.telnet = Telnet::Iac;
                }
                Telnet::Data => {
                    let rest = &buf[*pos..];
                    // Without telnet, IAC is data: it never stops the scan.
                    let plain = if self.plain {
                        rest.iter().position(|&b| matches!(b, CR | LF | NUL))
                    } else {
                        rest.iter().position(|&b| matches!(b, IAC | CR | LF | NUL))
                    }
                    .unwrap_or(rest.len());
                    // The usual case, a whole line in one read and nothing held from
                    // an earlier one: taken straight from the read buffer, so most
                    // sessions never allocate a line buffer of their own.
                    if plain > 0 && plain <= MAX_LINE && self.line.is_none() && !self.too_long {
                        if let Some(&end @ (CR | LF)) = rest.get(plain) {
                            *pos += plain + 1;
                            self.after_cr = end == CR;
                            let line = String::from_utf8_lossy(&rest[..plain]).into_owned();
                            return Some(Input::Line(line));
                        }
                    }
                    if plain > 0 {
                        self.push_data(&rest[..plain]);
                        *pos += plain;
                        continue;
                    }
                    *pos += 1;
                    match rest[0] {
                        IAC => self.telnet = Telnet::Iac,
                        CR => {
                            self.after_cr = true;
                            return Some(self.finish_line());
                        }
                        LF if !self.after_cr => return Some(self.finish_line()),
                        // The LF or NUL completing a CR, or a stray NUL: dropped.
                        _ => self.after_cr = false,
                    }
                }
                Telnet::Iac => {
                    let byte = buf[*pos];
                    *pos += 1;
                    self.telnet = match byte {
                        IAC if self.character && !answers.is_empty() => {
                            // The refusals first: this byte is read again next call.
                            *pos -= 1;
                            break;
                        }
                        IAC if self.character => {
                            self.telnet = Telnet::Data;
                            return Some(Input::Keys(Bytes::from_static(&[IAC])));
                        }
                        IAC => {
                            self.push_data(&[IAC]);
                            Telnet::Data
                        }
                        WILL | WONT | DO | DONT => Telnet::Option(byte),
                        SB => {
                            self.refused().sub.clear();
                            Telnet::Sub
                        }
                        IP | AO | AYT | EC | EL => {
                            self.telnet = Telnet::Data;
                            if !self.character && matches!(byte, IP | EC | EL) {
                                self.edit_line(byte);
                            }
                            let signal = match byte {
                                IP => Signal::Interrupt,
                                AO => Signal::AbortOutput,
                                AYT => Signal::AreYouThere,
                                EC => Signal::EraseChar,
                                _ => Signal::EraseLine,
                            };
                            if answers.is_empty() {
                                return Some(Input::Signal(signal));
                            }
                            // The refusals first; the signal on the next call.
                            self.refused().pending = Some(signal);
                            break;
                        }
                        // Any other two-byte command (NOP, DM, BRK, GA, a stray SE,
                        // ...): dropped.
                        _ => Telnet::Data,
                    };
                }
                Telnet::Option(command) => {
                    let option = buf[*pos];
                    *pos += 1;
                    self.telnet = Telnet::Data;
                    match self.answer(command, option) {
                        Answer::Send(answer) => answers.extend_from_slice(&answer),
                        Answer::Signal(signal) if answers.is_empty() => {
                            return Some(Input::Signal(signal));
                        }
                        Answer::Signal(signal) => {
                            // The refusals first; the signal on the next call.
                            self.refused().pending = Some(signal);
                            break;
                        }
                        Answer::Nothing => {}
                    }
                }
                Telnet::Sub => {
                    let rest = &buf[*pos..];
                    let data = rest.iter().position(|&b| b == IAC).unwrap_or(rest.len());
                    for &byte in &rest[..data] {
                        self.push_sub(byte);
                    }
                    *pos += data;
                    if *pos < buf.len() {
                        *pos += 1;
                        self.telnet = Telnet::SubIac;
                    }
                }
                Telnet::SubIac => match buf[*pos] {
                    SE => {
                        *pos += 1;
                        self.telnet = Telnet::Data;
                        if let Some(signal) = self.end_sub() {
                            if answers.is_empty() {
                                return Some(Input::Signal(signal));
                            }
                            self.refused().pending = Some(signal);
                            break;
                        }
                    }
                    IAC => {
                        // An escaped 0xFF inside the subnegotiation: one data byte.
                        *pos += 1;
                        self.push_sub(IAC);
                        self.telnet = Telnet::Sub;
                    }
                    // Any other command ends a malformed subnegotiation and is read
                    // as a command in its own right (as libtelnet does), so a client
                    // that never sends `IAC SE` does not lose all further input.
                    _ => self.telnet = Telnet::Iac,
                },
            }
        }
        (!answers.is_empty()).then(|| Input::Negotiation(Bytes::from(answers)))
    }

    /// Ends the input, once every read byte went through
    /// [`TelnetCodec::decode_slice`]: a last line without terminator still counts (so
    /// `printf quit | nc` works); an unfinished over-long line is reported; an
    /// unfinished telnet command is dropped. A second call returns `None`.
    pub fn finish(&mut self) -> Option<Input> {
        self.telnet = Telnet::Data;
        self.after_cr = false;
        (self.too_long || self.line.is_some()).then(|| self.finish_line())
    }
}

impl Decoder for TelnetCodec {
    type Item = Input;
    type Error = std::io::Error;

    /// Consumes `src` up to the end of the next item, or all of it when no item is
    /// complete: the unfinished line is kept inside the codec, bounded by
    /// [`MAX_LINE`], never in `src`.
    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<Input>, std::io::Error> {
        let mut pos = 0;
        let item = self.decode_slice(src, &mut pos);
        src.advance(pos);
        Ok(item)
    }

    /// The items left in `src`, then [`TelnetCodec::finish`].
    fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<Input>, std::io::Error> {
        if let Some(item) = self.decode(src)? {
            return Ok(Some(item));
        }
        Ok(self.finish())
    }
}

impl<'a> Encoder<Output<'a>> for TelnetCodec {
    type Error = std::io::Error;

    /// [`Output::encode_into`], with one reservation for the whole item.
    fn encode(&mut self, item: Output<'a>, dst: &mut BytesMut) -> Result<(), std::io::Error> {
        dst.reserve(item.encoded_len());
        item.encode_into(dst);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Telnet command bytes used by the tests.
    const NOP: u8 = 241;
    const NAWS: u8 = 31;
    const ECHO: u8 = 1;

    /// Feeds `chunks` one decode call at a time (draining items after each), then
    /// ends the input; returns every item in order.
    fn decode_chunks(chunks: &[&[u8]]) -> Vec<Input> {
        let mut codec = TelnetCodec::new();
        let mut src = BytesMut::new();
        let mut items = Vec::new();
        for chunk in chunks {
            src.extend_from_slice(chunk);
            while let Some(item) = codec.decode(&mut src).unwrap() {
                items.push(item);
            }
            assert!(src.is_empty(), "decode left bytes in src");
        }
        while let Some(item) = codec.decode_eof(&mut src).unwrap() {
            items.push(item);
        }
        items
    }

    /// Every item `codec` finds in one read of `input`, as the session takes them.
    fn decode_in(codec: &mut TelnetCodec, input: &[u8]) -> Vec<Input> {
        let mut pos = 0;
        let items = std::iter::from_fn(|| codec.decode_slice(input, &mut pos)).collect();
        assert_eq!(pos, input.len(), "decode_slice left bytes unread");
        items
    }

    fn decode_all(input: &[u8]) -> Vec<Input> {
        decode_chunks(&[input])
    }

    fn line(s: &str) -> Input {
        Input::Line(s.to_string())
    }

    fn negotiation(bytes: &[u8]) -> Input {
        Input::Negotiation(Bytes::copy_from_slice(bytes))
    }

    /// Splits the items into the lines (and too-long markers) and all negotiation
    /// bytes, whose grouping into items may depend on how the input was split.
    fn lines_and_answers(items: Vec<Input>) -> (Vec<Input>, Vec<u8>) {
        let mut lines = Vec::new();
        let mut answers = Vec::new();
        for item in items {
            match item {
                Input::Negotiation(bytes) => answers.extend_from_slice(&bytes),
                other => lines.push(other),
            }
        }
        (lines, answers)
    }

    fn encode(outputs: &[Output<'_>]) -> Vec<u8> {
        let mut codec = TelnetCodec::new();
        let mut dst = BytesMut::new();
        for output in outputs {
            codec.encode(*output, &mut dst).unwrap();
        }
        dst.to_vec()
    }

    #[test]
    fn every_line_ending_ends_a_line() {
        assert_eq!(
            decode_all(b"a\r\nb\r\0c\nd\re\n"),
            vec![line("a"), line("b"), line("c"), line("d"), line("e")]
        );
    }

    #[test]
    fn empty_lines_are_lines() {
        assert_eq!(
            decode_all(b"\r\n\n\r\0\r\r\n"),
            vec![line(""), line(""), line(""), line(""), line("")]
        );
    }

    #[test]
    fn cr_then_lf_or_nul_in_a_later_read_is_one_line_ending() {
        assert_eq!(
            decode_chunks(&[b"w3\r", b"\nd2\r", b"\0s1\n"]),
            vec![line("w3"), line("d2"), line("s1")]
        );
    }

    #[test]
    fn line_is_yielded_as_soon_as_its_cr_arrives() {
        let mut codec = TelnetCodec::new();
        let mut src = BytesMut::from(&b"quit\r"[..]);
        assert_eq!(codec.decode(&mut src).unwrap(), Some(line("quit")));
        assert_eq!(codec.decode(&mut src).unwrap(), None);
        src.extend_from_slice(b"\nnext\n");
        assert_eq!(codec.decode(&mut src).unwrap(), Some(line("next")));
    }

    #[test]
    fn only_one_lf_after_cr_is_swallowed() {
        assert_eq!(
            decode_chunks(&[b"a\r", b"\n", b"\n"]),
            vec![line("a"), line("")]
        );
    }

    #[test]
    fn stray_nul_bytes_are_dropped() {
        assert_eq!(decode_all(b"\0d\x002\0\n"), vec![line("d2")]);
    }

    #[test]
    fn telnet_command_between_cr_and_lf_does_not_split_the_ending() {
        assert_eq!(
            decode_all(&[b'a', CR, IAC, NOP, LF, b'b', LF]),
            vec![line("a"), line("b")]
        );
    }

    #[test]
    fn negotiation_inside_a_line_is_removed_and_refused() {
        let items = decode_all(&[b'd', IAC, WILL, ECHO, b'2', CR, LF]);
        assert_eq!(items, vec![negotiation(&[IAC, DONT, ECHO]), line("d2")]);
    }

    #[test]
    fn after_the_server_offers_echo_the_answer_is_not_refused() {
        let mut codec = TelnetCodec::new();
        assert_eq!(codec.echo(true), [IAC, WILL, ECHO]);
        let items = decode_in(&mut codec, &[IAC, DO, ECHO, b'p', b'w', LF]);
        assert_eq!(items, vec![Input::Signal(Signal::Agreed(ECHO)), line("pw")]);
        assert_eq!(codec.echo(false), [IAC, WONT, ECHO]);
    }

    #[test]
    fn do_is_refused_with_wont_once_per_option() {
        let items = decode_all(&[IAC, DO, ECHO, b'a', LF, IAC, DO, ECHO, IAC, DO, 3, b'b', LF]);
        assert_eq!(
            items,
            vec![
                negotiation(&[IAC, WONT, ECHO]),
                line("a"),
                negotiation(&[IAC, WONT, 3]),
                line("b"),
            ]
        );
    }

    #[test]
    fn will_and_do_of_one_option_are_refused_separately() {
        let items = decode_all(&[IAC, WILL, ECHO, IAC, DO, ECHO, IAC, WILL, ECHO]);
        assert_eq!(
            items,
            vec![negotiation(&[IAC, DONT, ECHO, IAC, WONT, ECHO])]
        );
    }

    #[test]
    fn wont_and_dont_get_no_answer() {
        let items = decode_all(&[IAC, WONT, ECHO, IAC, DONT, ECHO, b'x', LF]);
        assert_eq!(items, vec![line("x")]);
    }

    #[test]
    fn a_burst_of_requests_is_answered_at_once_even_mid_line() {
        let mut codec = TelnetCodec::new();
        let mut src = BytesMut::from(&[b'p', b'l', IAC, DO, 3, IAC, WILL, NAWS, b'a'][..]);
        assert_eq!(
            codec.decode(&mut src).unwrap(),
            Some(negotiation(&[IAC, WONT, 3, IAC, DONT, NAWS]))
        );
        assert_eq!(codec.decode(&mut src).unwrap(), None);
        src.extend_from_slice(b"y\n");
        assert_eq!(codec.decode(&mut src).unwrap(), Some(line("play")));
    }

    #[test]
    fn option_byte_in_a_later_read_is_still_an_option() {
        assert_eq!(
            decode_chunks(&[&[b'a', IAC], &[DO], &[ECHO, b'b', LF]]),
            vec![negotiation(&[IAC, WONT, ECHO]), line("ab")]
        );
    }

    #[test]
    fn two_byte_commands_are_dropped() {
        let mut input = vec![b'w'];
        for command in [NOP, 242, 243, 249, SE] {
            input.extend_from_slice(&[IAC, command]);
        }
        input.extend_from_slice(b"1\n");
        assert_eq!(decode_all(&input), vec![line("w1")]);
    }

    #[test]
    fn the_key_commands_are_signals_and_edit_the_line_in_line_mode() {
        let signal = |signal: Signal| Input::Signal(signal);
        // EC erases a character (a whole one), EL the line, IP the line too.
        assert_eq!(
            decode_all(&[b'h', b'e', 0xc3, 0xa9, IAC, EC, b'l', b'p', LF]),
            vec![signal(Signal::EraseChar), line("help")]
        );
        assert_eq!(
            decode_all(&[b'x', b'y', IAC, EL, b'o', b'k', LF]),
            vec![signal(Signal::EraseLine), line("ok")]
        );
        assert_eq!(
            decode_all(&[b'o', b'o', b'p', b's', IAC, IP, b'q', LF]),
            vec![signal(Signal::Interrupt), line("q")]
        );
        assert_eq!(
            decode_all(&[IAC, AO, IAC, AYT, b'a', LF]),
            vec![
                signal(Signal::AbortOutput),
                signal(Signal::AreYouThere),
                line("a")
            ]
        );
    }

    #[test]
    fn answers_to_what_the_server_offered_and_asked_are_signals() {
        let mut codec = TelnetCodec::new();
        assert_eq!(codec.offer(SGA_OPTION, true), [IAC, WILL, SGA_OPTION]);
        assert_eq!(codec.ask(NAWS_OPTION), [IAC, DO, NAWS_OPTION]);
        assert_eq!(codec.ask(TTYPE_OPTION), [IAC, DO, TTYPE_OPTION]);
        let input = [
            IAC,
            DO,
            SGA_OPTION,
            IAC,
            WILL,
            NAWS_OPTION,
            IAC,
            WONT,
            TTYPE_OPTION,
            IAC,
            DO,
            5,
            IAC,
            DONT,
            SGA_OPTION,
        ];
        let items = decode_in(&mut codec, &input);
        assert_eq!(
            items,
            vec![
                Input::Signal(Signal::Agreed(SGA_OPTION)),
                Input::Signal(Signal::Agreed(NAWS_OPTION)),
                Input::Signal(Signal::Declined(TTYPE_OPTION)),
                negotiation(&[IAC, WONT, 5]),
                Input::Signal(Signal::Declined(SGA_OPTION)),
            ]
        );
    }

    #[test]
    fn a_signal_right_after_a_refusal_comes_next() {
        let mut codec = TelnetCodec::new();
        codec.offer(ECHO_OPTION, true);
        let input = [IAC, DO, 5, IAC, DO, ECHO_OPTION];
        let items = decode_in(&mut codec, &input);
        assert_eq!(
            items,
            vec![
                negotiation(&[IAC, WONT, 5]),
                Input::Signal(Signal::Agreed(ECHO_OPTION))
            ]
        );
    }

    #[test]
    fn a_key_command_right_after_a_refusal_keeps_the_refusal() {
        // Found by the fuzzer: the refusal owed was dropped when AYT came next.
        let items = decode_all(&[IAC, DO, ECHO, IAC, AYT, b'b', LF]);
        assert_eq!(
            items,
            vec![
                negotiation(&[IAC, WONT, ECHO]),
                Input::Signal(Signal::AreYouThere),
                line("b")
            ]
        );
    }

    #[test]
    fn the_terminal_type_is_read_and_cleaned() {
        let mut input = vec![IAC, SB, TTYPE_OPTION, 0];
        input.extend_from_slice(b"XTERM-256\x1bCOLOR");
        input.extend_from_slice(&[IAC, SE]);
        for split in 0..=input.len() {
            let (first, second) = input.split_at(split);
            assert_eq!(
                decode_chunks(&[first, second]),
                vec![Input::Signal(Signal::TerminalType(String::from(
                    "XTERM-256COLOR"
                )))]
            );
        }
        assert_eq!(
            TelnetCodec::ask_terminal_type(),
            [IAC, SB, TTYPE_OPTION, 1, IAC, SE]
        );
    }

    #[test]
    fn without_telnet_iac_is_data_and_nothing_is_answered() {
        let mut lines = TelnetCodec::without_telnet(false);
        assert!(!lines.is_telnet());
        let input = b"say \xff\xfd\x01hi\r\nwho\n";
        let mut pos = 0;
        assert_eq!(
            lines.decode_slice(input, &mut pos),
            Some(Input::Line(String::from("say \u{fffd}\u{fffd}\u{1}hi")))
        );
        assert_eq!(
            lines.decode_slice(input, &mut pos),
            Some(Input::Line(String::from("who")))
        );
        assert_eq!(lines.decode_slice(input, &mut pos), None);

        let mut keys = TelnetCodec::without_telnet(true);
        let input = b"\x1b[A\xff\xfb\x01";
        let mut pos = 0;
        assert_eq!(
            keys.decode_slice(input, &mut pos),
            Some(Input::Keys(Bytes::copy_from_slice(input)))
        );
        assert_eq!(pos, input.len());
        assert!(!keys.negotiated(), "nothing negotiated");
        assert!(TelnetCodec::new().is_telnet());
    }

    #[test]
    fn in_character_mode_data_comes_as_keys() {
        let mut codec = TelnetCodec::new();
        codec.set_character_mode(true);
        let input = [b'a', b'\r', 0, IAC, IAC, 0x1b, b'[', b'A', IAC, IP];
        let items = decode_in(&mut codec, &input);
        assert_eq!(
            items,
            vec![
                Input::Keys(Bytes::from_static(b"a\r\0")),
                Input::Keys(Bytes::from_static(&[IAC])),
                Input::Keys(Bytes::from_static(b"\x1b[A")),
                Input::Signal(Signal::Interrupt),
            ]
        );
        // A literal 0xFF right after a refusal: both, in order.
        let input = [IAC, DO, 7, IAC, IAC, b'x'];
        let items = decode_in(&mut codec, &input);
        assert_eq!(
            items,
            vec![
                negotiation(&[IAC, WONT, 7]),
                Input::Keys(Bytes::from_static(&[IAC])),
                Input::Keys(Bytes::from_static(b"x")),
            ]
        );
        codec.set_character_mode(false);
        let mut pos = 0;
        assert_eq!(codec.decode_slice(b"back\n", &mut pos), Some(line("back")));
    }

    #[test]
    fn naws_subnegotiation_split_anywhere_is_the_window_size() {
        let naws = [IAC, SB, NAWS, 0, 80, 0, 24, IAC, SE];
        let mut input = b"d".to_vec();
        input.extend_from_slice(&naws);
        input.extend_from_slice(b"2\r\n");
        for split in 0..=input.len() {
            let (first, second) = input.split_at(split);
            assert_eq!(
                decode_chunks(&[first, second]),
                vec![
                    Input::Signal(Signal::WindowSize {
                        width: 80,
                        height: 24
                    }),
                    line("d2")
                ],
                "split at {split}"
            );
        }
    }

    #[test]
    fn escaped_iac_inside_subnegotiation_is_one_data_byte() {
        // A NAWS width of 255 is sent as IAC IAC; it must not end the SB or leak.
        let input = [IAC, SB, NAWS, 0, IAC, IAC, 0, 24, IAC, SE, b'o', b'k', LF];
        for split in 0..=input.len() {
            let (first, second) = input.split_at(split);
            assert_eq!(
                decode_chunks(&[first, second]),
                vec![
                    Input::Signal(Signal::WindowSize {
                        width: 255,
                        height: 24
                    }),
                    line("ok")
                ]
            );
        }
    }

    #[test]
    fn command_inside_unterminated_subnegotiation_ends_it() {
        let input = [IAC, SB, 24, 1, IAC, DO, ECHO, b'h', b'i', LF];
        assert_eq!(
            decode_all(&input),
            vec![negotiation(&[IAC, WONT, ECHO]), line("hi")]
        );
    }

    #[test]
    fn iac_iac_is_a_literal_ff_byte() {
        // 0xFF alone is not UTF-8, so the lossy line shows U+FFFD for it.
        assert_eq!(
            decode_all(&[b'a', IAC, IAC, b'b', LF]),
            vec![line("a\u{FFFD}b")]
        );
        assert_eq!(
            decode_chunks(&[&[b'a', IAC], &[IAC, b'b', LF]]),
            vec![line("a\u{FFFD}b")]
        );
    }

    #[test]
    fn invalid_utf8_is_replaced_and_valid_utf8_kept() {
        assert_eq!(
            decode_all(b"caf\xc3\xa9 \xc3\x28 \x80\n"),
            vec![line("caf\u{e9} \u{FFFD}( \u{FFFD}")]
        );
    }

    #[test]
    fn utf8_split_across_reads_is_kept() {
        assert_eq!(
            decode_chunks(&[b"\xe2\x94", b"\x80\n"]),
            vec![line("\u{2500}")]
        );
    }

    #[test]
    fn exactly_max_line_bytes_is_a_line() {
        let mut input = vec![b'x'; MAX_LINE];
        input.push(LF);
        assert_eq!(decode_all(&input), vec![line(&"x".repeat(MAX_LINE))]);
    }

    #[test]
    fn one_byte_over_max_line_is_too_long() {
        let mut input = vec![b'x'; MAX_LINE + 1];
        input.extend_from_slice(b"\r\n");
        assert_eq!(decode_all(&input), vec![Input::LineTooLong]);
    }

    #[test]
    fn over_long_line_is_dropped_whole_then_lines_go_on() {
        let mut input = vec![b'y'; 5000];
        input.extend_from_slice(b"\r\nhelp\r\n");
        let chunks: Vec<&[u8]> = input.chunks(700).collect();
        assert_eq!(
            decode_chunks(&chunks),
            vec![Input::LineTooLong, line("help")]
        );
        assert_eq!(decode_all(&input), vec![Input::LineTooLong, line("help")]);
    }

    #[test]
    fn memory_stays_bounded_without_a_line_ending() {
        let mut codec = TelnetCodec::new();
        let mut src = BytesMut::new();
        for _ in 0..100 {
            src.extend_from_slice(&[b'z'; 10_000]);
            assert_eq!(codec.decode(&mut src).unwrap(), None);
            assert!(src.is_empty());
            assert!(codec
                .line
                .as_ref()
                .is_none_or(|line| line.capacity() <= MAX_LINE));
        }
        src.extend_from_slice(b"\nok\n");
        assert_eq!(codec.decode(&mut src).unwrap(), Some(Input::LineTooLong));
        assert_eq!(codec.decode(&mut src).unwrap(), Some(line("ok")));
    }

    #[test]
    fn line_buffer_is_released_after_its_line() {
        let mut codec = TelnetCodec::new();
        // A long line in two pieces, so that it needs the buffer.
        let mut src = BytesMut::from(&[b'q'; 1000][..]);
        assert_eq!(codec.decode(&mut src).unwrap(), None);
        assert!(codec.line.is_some());
        src.extend_from_slice(b"\n");
        assert!(matches!(
            codec.decode(&mut src).unwrap(),
            Some(Input::Line(_))
        ));
        assert!(codec.line.is_none());
    }

    #[test]
    fn codec_is_small() {
        // The session keeps it among the fields every command touches.
        assert!(std::mem::size_of::<TelnetCodec>() <= 24);
    }

    #[test]
    fn eof_yields_the_unterminated_last_line() {
        assert_eq!(decode_all(b"quit"), vec![line("quit")]);
        assert_eq!(decode_all(b"a\nquit"), vec![line("a"), line("quit")]);
    }

    #[test]
    fn eof_after_a_terminated_line_yields_nothing_more() {
        assert_eq!(decode_all(b"quit\r\n"), vec![line("quit")]);
        assert_eq!(decode_all(b"quit\r"), vec![line("quit")]);
        assert_eq!(decode_all(b""), vec![]);
    }

    #[test]
    fn eof_in_an_over_long_line_reports_it_once() {
        assert_eq!(
            decode_all(&vec![b'x'; MAX_LINE + 1]),
            vec![Input::LineTooLong]
        );
    }

    #[test]
    fn eof_in_a_telnet_command_drops_it() {
        assert_eq!(decode_all(&[b'a', b'b', IAC]), vec![line("ab")]);
        assert_eq!(decode_all(&[IAC, SB, NAWS, 0]), vec![]);
    }

    #[test]
    fn text_newlines_become_crlf() {
        assert_eq!(
            encode(&[Output::Text("Welcome!\n#.P#\nEnter command: ")]),
            b"Welcome!\r\n#.P#\r\nEnter command: ".to_vec()
        );
        assert_eq!(encode(&[Output::Text("\n\n")]), b"\r\n\r\n".to_vec());
        assert_eq!(encode(&[Output::Text("")]), b"".to_vec());
    }

    #[test]
    fn raw_bytes_are_written_as_they_are() {
        assert_eq!(
            encode(&[Output::Raw(&[IAC, WONT, ECHO, LF]), Output::Text("a\n")]),
            vec![IAC, WONT, ECHO, LF, b'a', CR, LF]
        );
    }

    #[test]
    fn encoder_reserves_exactly_what_it_needs() {
        // Without the up-front reserve, the piecewise writes would grow the empty
        // buffer to 8 and then 16 bytes instead of exactly 14.
        let mut codec = TelnetCodec::new();
        let mut dst = BytesMut::new();
        codec
            .encode(Output::Text("hello\nworld\n"), &mut dst)
            .unwrap();
        assert_eq!(&dst[..], b"hello\r\nworld\r\n");
        assert_eq!(dst.capacity(), 14);
    }

    /// Decodes `chunks` the way the session does: every item of a chunk through
    /// `decode_slice`, nothing kept between chunks, then `finish` until `None`.
    fn decode_slices(chunks: &[&[u8]]) -> Vec<Input> {
        let mut codec = TelnetCodec::new();
        let mut items = Vec::new();
        for chunk in chunks {
            let mut pos = 0;
            while let Some(item) = codec.decode_slice(chunk, &mut pos) {
                items.push(item);
            }
            assert_eq!(pos, chunk.len(), "decode_slice left bytes unread");
        }
        items.extend(codec.finish());
        assert_eq!(codec.finish(), None, "finish gave a second item");
        items
    }

    #[test]
    fn decode_slice_and_finish_keep_unfinished_input_in_the_codec() {
        assert_eq!(
            decode_slices(&[
                b"a\r",
                b"\nbc",
                &[b'd', IAC],
                &[DO, ECHO, b'\n', b'l', b'a', b's', b't']
            ]),
            vec![
                line("a"),
                negotiation(&[IAC, WONT, ECHO]),
                line("bcd"),
                line("last")
            ]
        );
        assert_eq!(
            decode_slices(&[&[b'x'; MAX_LINE], b"y"]),
            vec![Input::LineTooLong]
        );
        assert_eq!(decode_slices(&[&[b'a', IAC, SB], &[1]]), vec![line("a")]);
    }

    #[test]
    fn encode_into_a_vec_writes_encoded_len_bytes() {
        for output in [
            Output::Text("Welcome!\n#.P#\nEnter command: "),
            Output::Text("\n"),
            Output::Text(""),
            Output::Raw(&[IAC, WONT, ECHO, LF]),
        ] {
            let mut bytes = Vec::new();
            output.encode_into(&mut bytes);
            assert_eq!(bytes.len(), output.encoded_len(), "{output:?}");
            assert_eq!(bytes, encode(&[output]));
        }
        let mut bytes = Vec::new();
        Output::Text("a\nb\n").encode_into(&mut bytes);
        assert_eq!(bytes, b"a\r\nb\r\n");
    }

    /// Cuts `input` at the given points (taken modulo its length, in order).
    fn split_at_points<'a>(input: &'a [u8], points: &[usize]) -> Vec<&'a [u8]> {
        let mut cuts: Vec<usize> = points.iter().map(|p| p % (input.len() + 1)).collect();
        cuts.sort_unstable();
        let mut chunks = Vec::new();
        let mut start = 0;
        for cut in cuts {
            chunks.push(&input[start..cut]);
            start = cut;
        }
        chunks.push(&input[start..]);
        chunks
    }

    /// Bytes rich in line endings and NULs, without IAC.
    fn plain_bytes() -> impl Strategy<Value = Vec<u8>> {
        proptest::collection::vec(
            prop_oneof![
                Just(CR),
                Just(LF),
                Just(NUL),
                any::<u8>().prop_filter("no IAC", |b| *b != IAC),
                b'a'..=b'z',
            ],
            0..300,
        )
    }

    /// Bytes with telnet commands, including SB, options and IAC IAC.
    fn telnet_bytes() -> impl Strategy<Value = Vec<u8>> {
        proptest::collection::vec(
            prop_oneof![
                Just(vec![CR]),
                Just(vec![LF]),
                Just(vec![NUL]),
                Just(vec![IAC]),
                Just(vec![IAC, IAC]),
                Just(vec![IAC, SE]),
                (
                    prop_oneof![Just(WILL), Just(WONT), Just(DO), Just(DONT)],
                    0u8..4
                )
                    .prop_map(|(c, o)| vec![IAC, c, o]),
                Just(vec![IAC, SB, NAWS, 0, 80, 0, 24, IAC, SE]),
                proptest::collection::vec(b'a'..=b'z', 1..8),
                any::<u8>().prop_map(|b| vec![b]),
            ],
            0..80,
        )
        .prop_map(|tokens| tokens.concat())
    }

    proptest! {
        #[test]
        fn chunked_decoding_matches_whole_decoding(
            input in plain_bytes(),
            points in proptest::collection::vec(any::<usize>(), 0..10),
        ) {
            let whole = decode_all(&input);
            let chunked = decode_chunks(&split_at_points(&input, &points));
            prop_assert_eq!(chunked, whole);
        }

        #[test]
        fn chunked_telnet_decoding_matches_whole_decoding(
            input in telnet_bytes(),
            points in proptest::collection::vec(any::<usize>(), 0..10),
        ) {
            let whole = lines_and_answers(decode_all(&input));
            let chunked = lines_and_answers(decode_chunks(&split_at_points(&input, &points)));
            prop_assert_eq!(chunked, whole);
        }

        #[test]
        fn the_sessions_slices_decode_as_the_decoder_does(
            input in telnet_bytes(),
            points in proptest::collection::vec(any::<usize>(), 0..10),
        ) {
            let chunks = split_at_points(&input, &points);
            prop_assert_eq!(decode_slices(&chunks), decode_chunks(&chunks));
        }

        #[test]
        fn lines_never_exceed_max_line_nor_hold_line_endings(input in telnet_bytes()) {
            for item in decode_all(&input) {
                if let Input::Line(text) = item {
                    prop_assert!(text.len() <= 3 * MAX_LINE);
                    prop_assert!(!text.contains(['\r', '\n', '\0']));
                }
            }
        }
    }
}
