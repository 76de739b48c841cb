/** A FIFO with O(1) shift and unshift. */
export class Fifo<T> {
  private items: T[] = []
  private head = 0
  get length (): number { return this.items.length - this.head }
  push (item: T): void { this.items.push(item) }
  unshift (item: T): void {
    if (this.head > 0) this.items[--this.head] = item
    else this.items.unshift(item)
  }

  /** Puts an item at an index from the head: 0 is unshift; one past the last, push. O(n) past the head. */
  insert (index: number, item: T): void {
    if (index <= 0) this.unshift(item)
    else if (index >= this.length) this.push(item)
    else this.items.splice(this.head + index, 0, item)
  }

  shift (): T | undefined {
    if (this.head >= this.items.length) return undefined
    const item = this.items[this.head]
    this.items[this.head++] = undefined as T
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head)
      this.head = 0
    }
    return item
  }

  drain (): T[] {
    const rest = this.items.slice(this.head)
    this.items = []
    this.head = 0
    return rest
  }
}
