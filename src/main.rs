fn main() {
    println!("mosk-console: under construction");
}
